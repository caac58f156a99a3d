// Fuzz properties of the OpenAI family: API responses, Codex responses and the Codex usage
// endpoint.
import { describe } from "vitest";
import { parseCodexResponse } from "./codex";
import { parseCodexUsage } from "./codex-usage";
import { itKeepsResponseInvariants, itKeepsUsageInvariants } from "./fuzz-invariants";
import { parseOpenAiResponse } from "./openai";

describe("fuzz: every parser is total and keeps its invariants", () => {
  itKeepsResponseInvariants("parseOpenAiResponse", parseOpenAiResponse, ["openai-"]);
  itKeepsResponseInvariants("parseCodexResponse", parseCodexResponse, ["codex-200", "codex-429"]);
  itKeepsUsageInvariants("parseCodexUsage", parseCodexUsage, ["codex-usage"]);
});
