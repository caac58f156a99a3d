// Fuzz properties of the Google family: Gemini and Code Assist responses, and the Code Assist
// quota endpoint.
import { describe } from "vitest";
import { parseCodeAssistQuota } from "./code-assist-quota";
import { itKeepsResponseInvariants, itKeepsUsageInvariants } from "./fuzz-invariants";
import { parseGeminiResponse } from "./gemini";

describe("fuzz: every parser is total and keeps its invariants", () => {
  itKeepsResponseInvariants("parseGeminiResponse", parseGeminiResponse, [
    "gemini-",
    "code-assist-429",
  ]);
  itKeepsUsageInvariants("parseCodeAssistQuota", parseCodeAssistQuota, [
    "code-assist-quota",
    "antigravity",
  ]);
});
