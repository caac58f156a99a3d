// Fuzz properties of the GitHub Copilot family: responses and the quota endpoint.
import { describe } from "vitest";
import { parseCopilotResponse } from "./copilot";
import { parseCopilotQuota } from "./copilot-quota";
import { itKeepsResponseInvariants, itKeepsUsageInvariants } from "./fuzz-invariants";

describe("fuzz: every parser is total and keeps its invariants", () => {
  itKeepsResponseInvariants("parseCopilotResponse", parseCopilotResponse, ["copilot-4"]);
  itKeepsUsageInvariants("parseCopilotQuota", parseCopilotQuota, ["copilot-user"]);
});
