import { describe, expect, it } from "vitest";
import freeDaily from "./__fixtures__/openrouter-429-free-daily.json";
import modelRpm from "./__fixtures__/openrouter-429-model-rpm.json";
import upstream from "./__fixtures__/openrouter-429-upstream.json";
import { OPENROUTER_FREE_SCOPE, parseOpenRouterResponse } from "./openrouter";

const observedAtMs = Date.parse("2026-08-31T15:00:00.000Z");

describe("parseOpenRouterResponse", () => {
  it("free-models-per-day: window_exhausted until X-RateLimit-Reset in epoch ms", () => {
    const { windows, failure } = parseOpenRouterResponse({ ...freeDaily, observedAtMs });
    expect(windows).toEqual([
      {
        windowId: "free_daily",
        scope: { model: OPENROUTER_FREE_SCOPE },
        remainingPercent: 0,
        resetAt: "2026-09-01T00:00:00.000Z",
        windowSeconds: 86400,
        status: "exhausted",
        source: "body",
        observedAt: "2026-08-31T15:00:00.000Z",
      },
    ]);
    expect(failure).toMatchObject({
      kind: "window_exhausted",
      resetAt: "2026-09-01T00:00:00.000Z",
      scope: { model: ":free" },
    });
  });

  it("upstream shared pool is provider capacity: overloaded for that model, no window", () => {
    const { windows, failure } = parseOpenRouterResponse({
      ...upstream,
      observedAtMs,
      model: "google/gemini-2.0-flash-exp:free",
    });
    expect(windows).toEqual([]);
    expect(failure).toMatchObject({
      kind: "overloaded",
      scope: { model: "google/gemini-2.0-flash-exp:free" },
    });
  });

  it("limit_rpm/<model> is a per-model rate limit", () => {
    const { windows, failure } = parseOpenRouterResponse({
      ...modelRpm,
      observedAtMs,
      model: "deepseek/deepseek-r1",
    });
    expect(windows[0]).toMatchObject({
      windowId: "rpm:deepseek/deepseek-r1",
      scope: { model: "deepseek/deepseek-r1" },
      status: "exhausted",
    });
    expect(failure).toMatchObject({
      kind: "rate_limited",
      scope: { model: "deepseek/deepseek-r1" },
    });
  });

  it("402 is credits_exhausted", () => {
    const { failure } = parseOpenRouterResponse({
      status: 402,
      headers: {},
      body: {
        error: { code: 402, message: "This request requires more credits, or fewer max_tokens." },
      },
      observedAtMs,
    });
    expect(failure?.kind).toBe("credits_exhausted");
  });
});
