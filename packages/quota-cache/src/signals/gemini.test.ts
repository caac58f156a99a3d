import { describe, expect, it } from "vitest";
import codeAssist429 from "./__fixtures__/code-assist-429.json";
import quotaExhausted from "./__fixtures__/code-assist-429-quota-exhausted.json";
import validation403 from "./__fixtures__/gemini-403-validation.json";
import bare429 from "./__fixtures__/gemini-429-bare.json";
import legacy429 from "./__fixtures__/gemini-429-legacy-error-info.json";
import perMinute429 from "./__fixtures__/gemini-429-per-minute.json";
import quotaFailure429 from "./__fixtures__/gemini-429-quota-failure.json";
import unavailable503 from "./__fixtures__/gemini-503.json";
import { parseGeminiResponse } from "./gemini";

// 04:00 Pacific standard time.
const observedAtMs = Date.parse("2026-01-02T12:00:00.000Z");

describe("parseGeminiResponse", () => {
  it("a PerDay QuotaFailure is window_exhausted until the next Pacific midnight", () => {
    const { windows, failure } = parseGeminiResponse({ ...quotaFailure429, observedAtMs });
    expect(failure).toEqual({
      kind: "window_exhausted",
      retryAt: "2026-01-02T12:00:47.000Z",
      resetAt: "2026-01-03T08:00:00.000Z",
      scope: { model: "gemini-2.0-flash" },
      windowId: "rpd:gemini-2.0-flash",
      code: "RESOURCE_EXHAUSTED",
    });
    expect(windows.map((w) => [w.windowId, w.status, w.resetAt, w.remainingPercent])).toEqual([
      ["rpd:gemini-2.0-flash", "exhausted", "2026-01-03T08:00:00.000Z", null],
      ["rpm:gemini-2.0-flash", "exhausted", "2026-01-02T12:00:47.000Z", null],
      ["itpm:gemini-2.0-flash", "exhausted", "2026-01-02T12:00:47.000Z", null],
    ]);
    expect(windows.every((w) => w.scope?.model === "gemini-2.0-flash")).toBe(true);
  });

  it("Pacific midnight follows daylight saving time", () => {
    const summer = Date.parse("2026-07-01T12:00:00.000Z");
    const { failure } = parseGeminiResponse({ ...quotaFailure429, observedAtMs: summer });
    expect(failure?.resetAt).toBe("2026-07-02T07:00:00.000Z");
  });

  it("a PerMinute QuotaFailure is rate_limited for RetryInfo.retryDelay", () => {
    const { windows, failure } = parseGeminiResponse({ ...perMinute429, observedAtMs });
    expect(failure).toMatchObject({
      kind: "rate_limited",
      retryAt: "2026-01-02T12:00:12.500Z",
      windowId: "itpm:gemini-2.5-flash",
      scope: { model: "gemini-2.5-flash" },
    });
    expect(windows[0]?.windowSeconds).toBe(60);
  });

  it("Code Assist RATE_LIMIT_EXCEEDED: rate_limited with the sub-second retry delay", () => {
    const { failure } = parseGeminiResponse({ ...codeAssist429, observedAtMs });
    expect(failure).toEqual({
      kind: "rate_limited",
      retryAt: "2026-01-02T12:00:00.976Z",
      resetAt: "2026-01-02T16:30:12.000Z",
      scope: { model: "gemini-2.5-pro" },
      code: "RATE_LIMIT_EXCEEDED",
    });
  });

  it("Code Assist QUOTA_EXHAUSTED: window_exhausted until quotaResetTimeStamp", () => {
    const { failure } = parseGeminiResponse({ ...quotaExhausted, observedAtMs });
    expect(failure).toMatchObject({
      kind: "window_exhausted",
      resetAt: "2026-01-03T06:32:15.000Z",
      scope: { model: "gemini-2.5-pro" },
      code: "QUOTA_EXHAUSTED",
    });
  });

  it("older ErrorInfo quota_limit PerMinute is read like a quotaId", () => {
    const { failure } = parseGeminiResponse({
      ...legacy429,
      observedAtMs,
      model: "gemini-1.5-pro",
    });
    expect(failure).toMatchObject({
      kind: "rate_limited",
      retryAt: "2026-01-02T12:01:00.000Z",
      windowId: "rpm:gemini-1.5-pro",
    });
  });

  it("a retry delay over 300 s is terminal", () => {
    const { failure } = parseGeminiResponse({
      status: 429,
      headers: {},
      body: {
        error: {
          code: 429,
          status: "RESOURCE_EXHAUSTED",
          message: "quota",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "3600s" }],
        },
      },
      observedAtMs,
    });
    expect(failure).toMatchObject({
      kind: "window_exhausted",
      resetAt: "2026-01-02T13:00:00.000Z",
    });
  });

  it("a 429 without details invents no reset and stays with the requested model", () => {
    const { windows, failure } = parseGeminiResponse({
      ...bare429,
      observedAtMs,
      model: "gemini-2.5-pro",
    });
    expect(windows).toEqual([]);
    expect(failure).toEqual({
      kind: "rate_limited",
      retryAt: null,
      resetAt: null,
      scope: { model: "gemini-2.5-pro" },
      code: "RESOURCE_EXHAUSTED",
    });
  });

  it("503 is overloaded; 403 VALIDATION_REQUIRED is auth_invalid", () => {
    expect(parseGeminiResponse({ ...unavailable503, observedAtMs }).failure?.kind).toBe(
      "overloaded",
    );
    expect(parseGeminiResponse({ ...validation403, observedAtMs }).failure).toMatchObject({
      kind: "auth_invalid",
      code: "VALIDATION_REQUIRED",
    });
  });

  it("reads the array envelope of streaming endpoints", () => {
    const { failure } = parseGeminiResponse({
      status: 429,
      headers: {},
      body: [quotaFailure429.body],
      observedAtMs,
    });
    expect(failure?.kind).toBe("window_exhausted");
  });
});
