import { describe, expect, it } from "vitest";
import pro200 from "./__fixtures__/codex-200-pro.json";
import usageLimit429 from "./__fixtures__/codex-429-usage-limit.json";
import { parseCodexResponse } from "./codex";

const observedAtMs = 1_790_270_879_000;

describe("parseCodexResponse", () => {
  it("classifies the primary slot by its minutes: 10080 is the weekly window", () => {
    const { windows, failure } = parseCodexResponse({ ...pro200, observedAtMs });
    expect(failure).toBeUndefined();
    const weekly = windows.find((w) => w.windowId === "7d");
    expect(weekly).toEqual({
      windowId: "7d",
      remainingPercent: 78,
      resetAt: new Date(1_790_426_679_000).toISOString(),
      windowSeconds: 604800,
      status: "ok",
      source: "header",
      observedAt: new Date(observedAtMs).toISOString(),
      rawUsedPercent: 22,
    });
  });

  it("drops the all-zero secondary window with an empty reset-at", () => {
    const { windows } = parseCodexResponse({ ...pro200, observedAtMs });
    expect(windows.map((w) => w.windowId).sort()).toEqual(["5h:codex_bengalfox", "7d"]);
  });

  it("scopes a named limit to its model", () => {
    const { windows } = parseCodexResponse({ ...pro200, observedAtMs });
    expect(windows.find((w) => w.windowId === "5h:codex_bengalfox")).toMatchObject({
      scope: { model: "gpt-5.3-codex-spark" },
      remainingPercent: 60,
      windowSeconds: 18000,
    });
  });

  it("429 usage_limit_reached: window_exhausted until resets_at", () => {
    const observed = 1_767_378_652_000;
    const { windows, failure } = parseCodexResponse({ ...usageLimit429, observedAtMs: observed });
    expect(failure).toEqual({
      kind: "window_exhausted",
      retryAt: "2026-01-02T20:30:52.000Z",
      resetAt: "2026-01-02T20:30:52.000Z",
      windowId: "5h",
      code: "usage_limit_reached",
    });
    expect(windows.find((w) => w.windowId === "5h")?.status).toBe("exhausted");
    expect(windows.find((w) => w.windowId === "7d")?.status).toBe("ok");
  });

  it("falls back to resets_in_seconds when resets_at is absent", () => {
    const observed = Date.parse("2026-01-02T12:00:00.000Z");
    const { failure } = parseCodexResponse({
      status: 429,
      headers: {},
      body: { error: { type: "usage_limit_reached", resets_in_seconds: 7200 } },
      observedAtMs: observed,
    });
    expect(failure?.resetAt).toBe("2026-01-02T14:00:00.000Z");
  });

  it("model at capacity is overloaded; usage_not_included is the login's misconfiguration", () => {
    const capacity = parseCodexResponse({
      status: 429,
      headers: {},
      body: { error: { message: "Selected model is at capacity. Please try a different model." } },
      observedAtMs,
      model: "gpt-5.2-codex",
    });
    expect(capacity.failure).toMatchObject({
      kind: "overloaded",
      scope: { model: "gpt-5.2-codex" },
    });
    const notIncluded = parseCodexResponse({
      status: 429,
      headers: {},
      body: { error: { type: "usage_not_included" } },
      observedAtMs,
    });
    expect(notIncluded.failure).toMatchObject({
      kind: "misconfigured",
      detail: "the ChatGPT plan of this login does not include Codex",
    });
  });

  it("other 429s are transient rate limits", () => {
    const { failure } = parseCodexResponse({
      status: 429,
      headers: { "retry-after": "3" },
      body: { error: { type: "rate_limit_exceeded", message: "slow down" } },
      observedAtMs,
    });
    expect(failure).toMatchObject({
      kind: "rate_limited",
      retryAt: new Date(observedAtMs + 3000).toISOString(),
    });
  });
});
