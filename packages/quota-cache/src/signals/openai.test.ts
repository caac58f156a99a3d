import { describe, expect, it } from "vitest";
import ok200 from "./__fixtures__/openai-200.json";
import insufficient from "./__fixtures__/openai-429-insufficient-quota.json";
import limited from "./__fixtures__/openai-429-rate-limit.json";
import placeholders from "./__fixtures__/openai-azure-placeholders.json";
import { parseOpenAiResponse } from "./openai";

const observedAtMs = Date.parse("2026-04-01T10:00:00.000Z");

describe("parseOpenAiResponse", () => {
  it("reads x-ratelimit-* with Go-duration resets counted from the observation", () => {
    const { windows, failure } = parseOpenAiResponse({ ...ok200, observedAtMs });
    expect(failure).toBeUndefined();
    expect(
      windows.map((w) => [w.windowId, w.remainingPercent, w.resetAt, w.windowSeconds]),
    ).toEqual([
      ["rpm", 99.98, "2026-04-01T10:00:00.012Z", 60],
      ["tpm", 99.985, "2026-04-01T10:00:00.009Z", 60],
      ["tokens_usage_based", 99.985, "2026-04-01T10:00:00.009Z", undefined],
    ]);
  });

  it("429 rate_limit_exceeded: rate_limited, retry from 'try again in 1.146s'", () => {
    const { windows, failure } = parseOpenAiResponse({ ...limited, observedAtMs });
    expect(failure).toEqual({
      kind: "rate_limited",
      retryAt: "2026-04-01T10:00:01.146Z",
      resetAt: null,
      windowId: "tpm",
      code: "rate_limit_exceeded",
    });
    expect(windows.find((w) => w.windowId === "tpm")).toMatchObject({
      status: "exhausted",
      resetAt: "2026-04-01T10:06:00.000Z",
    });
    expect(windows.find((w) => w.windowId === "rpm")?.resetAt).toBe("2026-04-01T10:01:30.500Z");
  });

  it("429 insufficient_quota: credits_exhausted, credits window exhausted, no reset", () => {
    const { windows, failure } = parseOpenAiResponse({ ...insufficient, observedAtMs });
    expect(failure).toEqual({
      kind: "credits_exhausted",
      retryAt: null,
      resetAt: null,
      code: "insufficient_quota",
    });
    expect(windows).toEqual([
      {
        windowId: "credits",
        remainingPercent: 0,
        resetAt: null,
        status: "exhausted",
        source: "body",
        observedAt: "2026-04-01T10:00:00.000Z",
      },
    ]);
  });

  it("a request larger than the whole TPM bucket is flagged request_too_large", () => {
    const { failure } = parseOpenAiResponse({
      status: 429,
      headers: {},
      body: {
        error: {
          message:
            "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 34307.",
          type: "tokens",
          code: "rate_limit_exceeded",
        },
      },
      observedAtMs,
    });
    expect(failure).toMatchObject({ kind: "rate_limited", code: "request_too_large" });
  });

  it("Azure -1 / 0 placeholders are absent, not 0 % left", () => {
    expect(parseOpenAiResponse({ ...placeholders, observedAtMs }).windows).toEqual([]);
  });

  it("Azure retry-after-ms wins over retry-after", () => {
    const { failure } = parseOpenAiResponse({
      status: 429,
      headers: { "retry-after": "10", "retry-after-ms": "2500" },
      body: { error: { code: "rate_limit_exceeded", message: "slow down" } },
      observedAtMs,
    });
    expect(failure?.retryAt).toBe("2026-04-01T10:00:02.500Z");
  });
});
