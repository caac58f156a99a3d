import { describe, expect, it } from "vitest";
import ok200 from "./__fixtures__/anthropic-api-200.json";
import credit400 from "./__fixtures__/anthropic-api-400-credit.json";
import limited429 from "./__fixtures__/anthropic-api-429.json";
import overloaded529 from "./__fixtures__/anthropic-api-529.json";
import { parseAnthropicApiResponse } from "./anthropic-api";

const observedAtMs = Date.parse("2025-08-21T12:40:00.000Z");

describe("parseAnthropicApiResponse", () => {
  it("reads one window per dimension with the RFC 3339 reset", () => {
    const { windows, failure } = parseAnthropicApiResponse({ ...ok200, observedAtMs });
    expect(failure).toBeUndefined();
    expect(windows.map((w) => [w.windowId, w.remainingPercent, w.resetAt])).toEqual([
      ["rpm", 99.9, "2025-08-21T12:40:59.000Z"],
      ["tpm", 100, "2025-08-21T12:40:59.000Z"],
      ["itpm", 100, "2025-08-21T12:40:59.000Z"],
      ["otpm", 100, "2025-08-21T12:41:00.000Z"],
    ]);
    expect(windows.every((w) => w.windowSeconds === 60 && w.status === "ok")).toBe(true);
  });

  it("429 rate_limit_error: rate_limited, retry at Retry-After, reset at the spent dimension", () => {
    const { windows, failure } = parseAnthropicApiResponse({ ...limited429, observedAtMs });
    expect(windows.find((w) => w.windowId === "itpm")?.status).toBe("exhausted");
    expect(failure).toEqual({
      kind: "rate_limited",
      retryAt: "2025-08-21T12:40:20.000Z",
      resetAt: "2025-08-21T12:41:30.000Z",
      windowId: "itpm",
      code: "rate_limit_error",
    });
  });

  it("529 overloaded_error: overloaded, and no window is marked exhausted", () => {
    const { windows, failure } = parseAnthropicApiResponse({ ...overloaded529, observedAtMs });
    expect(failure?.kind).toBe("overloaded");
    expect(windows.length).toBe(1);
    expect(windows.some((w) => w.status === "exhausted")).toBe(false);
  });

  it("credit balance too low and 402 billing_error are credits_exhausted", () => {
    expect(parseAnthropicApiResponse({ ...credit400, observedAtMs }).failure?.kind).toBe(
      "credits_exhausted",
    );
    const billing = parseAnthropicApiResponse({
      status: 402,
      headers: {},
      body: { type: "error", error: { type: "billing_error", message: "..." } },
      observedAtMs,
    });
    expect(billing.failure).toMatchObject({ kind: "credits_exhausted", resetAt: null });
  });

  it("401 and 403 are auth_invalid", () => {
    for (const status of [401, 403]) {
      expect(
        parseAnthropicApiResponse({ status, headers: {}, body: {}, observedAtMs }).failure?.kind,
      ).toBe("auth_invalid");
    }
  });

  it("reads the llm_provider- prefixed headers LiteLLM forwards", () => {
    const { windows } = parseAnthropicApiResponse({
      status: 200,
      headers: {
        "llm_provider-anthropic-ratelimit-requests-limit": "50",
        "llm_provider-anthropic-ratelimit-requests-remaining": "10",
        "llm_provider-anthropic-ratelimit-requests-reset": "2025-08-21T12:41:00Z",
      },
      observedAtMs,
    });
    expect(windows[0]).toMatchObject({ windowId: "rpm", remainingPercent: 20 });
  });
});
