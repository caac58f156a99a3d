import { describe, expect, it } from "vitest";
import quotaExceeded from "./__fixtures__/copilot-402-quota-exceeded.json";
import modelLimited from "./__fixtures__/copilot-429-retry-after.json";
import weekly from "./__fixtures__/copilot-429-weekly.json";
import { parseCopilotResponse } from "./copilot";

const observedAtMs = Date.parse("2026-10-21T07:00:00.000Z");

describe("parseCopilotResponse", () => {
  it("402 quota_exceeded: premium window spent, reset left to the quota poller", () => {
    const { windows, failure } = parseCopilotResponse({ ...quotaExceeded, observedAtMs });
    expect(windows).toEqual([]);
    expect(failure).toEqual({
      kind: "window_exhausted",
      retryAt: null,
      resetAt: null,
      windowId: "premium_interactions",
      code: "quota_exceeded",
    });
  });

  it("429 user_weekly_rate_limited: window_exhausted until 'try again in 58 hours'", () => {
    const { failure } = parseCopilotResponse({ ...weekly, observedAtMs });
    expect(failure).toEqual({
      kind: "window_exhausted",
      retryAt: "2026-10-23T17:00:00.000Z",
      resetAt: "2026-10-23T17:00:00.000Z",
      windowId: "weekly",
      code: "user_weekly_rate_limited",
    });
  });

  it("429 user_model_rate_limited: scoped to the model, retry at the HTTP-date", () => {
    const { failure } = parseCopilotResponse({
      ...modelLimited,
      observedAtMs,
      model: "claude-sonnet-4.5",
    });
    expect(failure).toEqual({
      kind: "rate_limited",
      retryAt: "2026-10-21T07:28:00.000Z",
      resetAt: null,
      scope: { model: "claude-sonnet-4.5" },
      code: "user_model_rate_limited",
    });
  });

  it("other 402 codes are hard stops; 401/403 need re-auth", () => {
    const spend = parseCopilotResponse({
      status: 402,
      headers: {},
      body: { error: { code: "additional_spend_limit_reached", message: "..." } },
      observedAtMs,
    });
    expect(spend.failure?.kind).toBe("credits_exhausted");
    expect(parseCopilotResponse({ status: 403, headers: {}, observedAtMs }).failure?.kind).toBe(
      "auth_invalid",
    );
  });
});
