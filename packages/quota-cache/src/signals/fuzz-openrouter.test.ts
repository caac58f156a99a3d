// Fuzz properties of the OpenRouter family: responses and the key endpoint.
import { describe } from "vitest";
import { itKeepsResponseInvariants, itKeepsUsageInvariants } from "./fuzz-invariants";
import { parseOpenRouterResponse } from "./openrouter";
import { parseOpenRouterKey } from "./openrouter-key";

describe("fuzz: every parser is total and keeps its invariants", () => {
  itKeepsResponseInvariants("parseOpenRouterResponse", parseOpenRouterResponse, ["openrouter-429"]);
  itKeepsUsageInvariants("parseOpenRouterKey", parseOpenRouterKey, ["openrouter-key"]);
});
