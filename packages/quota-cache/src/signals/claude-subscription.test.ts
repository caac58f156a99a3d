import { describe, expect, it } from "vitest";
import overage200 from "./__fixtures__/claude-subscription-200-overage.json";
import warning200 from "./__fixtures__/claude-subscription-200-warning.json";
import rejected429 from "./__fixtures__/claude-subscription-429-five-hour.json";
import headerless from "./__fixtures__/claude-subscription-429-headerless.json";
import { parseClaudeSubscriptionResponse } from "./claude-subscription";

// 2094 s before the five-hour reset in the captured 429.
const observedAtMs = Date.parse("2026-03-25T20:25:06.000Z");

describe("parseClaudeSubscriptionResponse", () => {
  it("turns the captured 429 into an exhausted 5h window and a window_exhausted failure", () => {
    const signals = parseClaudeSubscriptionResponse({ ...rejected429, observedAtMs });
    expect(signals.windows).toEqual([
      {
        windowId: "5h",
        remainingPercent: 0,
        resetAt: "2026-03-25T21:00:00.000Z",
        windowSeconds: 18000,
        status: "exhausted",
        source: "header",
        observedAt: "2026-03-25T20:25:06.000Z",
        rawUsedPercent: 100,
      },
      {
        windowId: "7d",
        remainingPercent: 41,
        resetAt: "2026-03-27T03:00:00.000Z",
        windowSeconds: 604800,
        status: "ok",
        source: "header",
        observedAt: "2026-03-25T20:25:06.000Z",
        rawUsedPercent: 59,
      },
    ]);
    expect(signals.failure).toEqual({
      kind: "window_exhausted",
      retryAt: "2026-03-25T21:00:00.000Z",
      resetAt: "2026-03-25T21:00:00.000Z",
      windowId: "5h",
      code: "rate_limit_error",
    });
    expect(signals.overage).toEqual({
      status: "rejected",
      disabledReason: "out_of_credits",
      inUse: false,
    });
  });

  it("reads warnings from allowed_warning and surpassed-threshold, and scopes 7d_sonnet", () => {
    const signals = parseClaudeSubscriptionResponse({ ...warning200, observedAtMs });
    const byId = Object.fromEntries(signals.windows.map((w) => [w.windowId, w]));
    expect(byId["5h"]).toMatchObject({ remainingPercent: 58, status: "ok" });
    expect(byId["7d"]?.status).toBe("warning");
    expect(byId["7d"]?.remainingPercent).toBe(9);
    expect(byId["7d:sonnet"]).toMatchObject({
      scope: { model: "sonnet" },
      remainingPercent: 70,
      status: "ok",
    });
    expect(signals.failure).toBeUndefined();
    expect(signals.overage).toEqual({
      status: "allowed",
      inUse: false,
      resetAt: "2026-04-01T00:00:00.000Z",
    });
  });

  it("reports a plan serving from paid overage: rejected status with overage allowed", () => {
    const signals = parseClaudeSubscriptionResponse({ ...overage200, observedAtMs });
    const byId = Object.fromEntries(signals.windows.map((w) => [w.windowId, w]));
    expect(byId["7d"]).toMatchObject({ status: "exhausted", remainingPercent: 0 });
    expect(byId["5h"]).toMatchObject({ status: "ok", remainingPercent: 80 });
    // Over 100 % used: clamped for routing, raw kept for billing.
    expect(byId["7d_oi"]).toMatchObject({ remainingPercent: 0, rawUsedPercent: 102 });
    expect(byId["7d_oi"]?.scope).toBeUndefined();
    expect(signals.overage).toMatchObject({ status: "allowed_warning", inUse: true });
    expect(signals.failure).toBeUndefined();
  });

  it("scopes a headerless 429 to the requested model and invents no reset", () => {
    const signals = parseClaudeSubscriptionResponse({
      ...headerless,
      observedAtMs,
      model: "claude-opus-4-1",
    });
    expect(signals.windows).toEqual([]);
    expect(signals.failure).toEqual({
      kind: "rate_limited",
      retryAt: null,
      resetAt: null,
      scope: { model: "claude-opus-4-1" },
      code: "rate_limit_error",
    });
  });

  it("marks the claimed model window exhausted when the claim is seven_day_opus", () => {
    const signals = parseClaudeSubscriptionResponse({
      status: 429,
      headers: {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-representative-claim": "seven_day_opus",
        "anthropic-ratelimit-unified-reset": "1774580400",
        "anthropic-ratelimit-unified-5h-utilization": "0.1",
        "anthropic-ratelimit-unified-5h-reset": "1774472400",
      },
      body: { type: "error", error: { type: "rate_limit_error", message: "..." } },
      observedAtMs,
    });
    const opus = signals.windows.find((w) => w.windowId === "7d:opus");
    expect(opus).toMatchObject({
      scope: { model: "opus" },
      status: "exhausted",
      resetAt: "2026-03-27T03:00:00.000Z",
    });
    expect(signals.failure).toMatchObject({
      kind: "window_exhausted",
      windowId: "7d:opus",
      scope: { model: "opus" },
      resetAt: "2026-03-27T03:00:00.000Z",
    });
    expect(signals.windows.find((w) => w.windowId === "5h")?.status).toBe("ok");
  });

  it("classifies 529 as overloaded, 401 as auth_invalid", () => {
    const overloaded = parseClaudeSubscriptionResponse({
      status: 529,
      headers: {},
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      observedAtMs,
    });
    expect(overloaded.failure?.kind).toBe("overloaded");
    const auth = parseClaudeSubscriptionResponse({
      status: 401,
      headers: {},
      body: { type: "error", error: { type: "authentication_error", message: "invalid" } },
      observedAtMs,
    });
    expect(auth.failure?.kind).toBe("auth_invalid");
  });

  it("reads nothing from a response without unified headers (unknown, not fine)", () => {
    expect(parseClaudeSubscriptionResponse({ status: 200, headers: {}, observedAtMs })).toEqual({
      windows: [],
    });
  });
});
