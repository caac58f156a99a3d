// Fuzz properties of the Anthropic family: Claude subscription and API-key responses, and the
// OAuth usage endpoint.
import { describe } from "vitest";
import { parseAnthropicApiResponse } from "./anthropic-api";
import { parseClaudeOauthUsage } from "./claude-oauth-usage";
import { parseClaudeSubscriptionResponse } from "./claude-subscription";
import { itKeepsResponseInvariants, itKeepsUsageInvariants } from "./fuzz-invariants";

describe("fuzz: every parser is total and keeps its invariants", () => {
  itKeepsResponseInvariants("parseClaudeSubscriptionResponse", parseClaudeSubscriptionResponse, [
    "claude-subscription",
  ]);
  itKeepsResponseInvariants("parseAnthropicApiResponse", parseAnthropicApiResponse, [
    "anthropic-api",
  ]);
  itKeepsUsageInvariants("parseClaudeOauthUsage", parseClaudeOauthUsage, ["claude-oauth-usage"]);
});
