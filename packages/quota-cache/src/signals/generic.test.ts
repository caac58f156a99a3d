import { describe, expect, it } from "vitest";
import cerebras from "./__fixtures__/cerebras-200.json";
import deepseek402 from "./__fixtures__/deepseek-402.json";
import groq200 from "./__fixtures__/groq-200.json";
import groq429 from "./__fixtures__/groq-429.json";
import mistral from "./__fixtures__/mistral-200.json";
import { parseGenericResponse } from "./generic";

const observedAtMs = Date.parse("2026-06-01T12:00:00.000Z");

describe("parseGenericResponse", () => {
  it("Groq: the requests window is per day", () => {
    const { windows } = parseGenericResponse({ ...groq200, observedAtMs, provider: "groq" });
    expect(windows.map((w) => [w.windowId, w.windowSeconds, w.resetAt])).toEqual([
      ["rpd", 86400, "2026-06-01T12:02:59.560Z"],
      ["tpm", 60, "2026-06-01T12:00:07.660Z"],
    ]);
  });

  it("Groq 429: rate_limited at Retry-After", () => {
    const { failure } = parseGenericResponse({ ...groq429, observedAtMs, provider: "groq" });
    expect(failure).toMatchObject({
      kind: "rate_limited",
      retryAt: "2026-06-01T12:00:06.000Z",
      windowId: "tpm",
    });
  });

  it("Cerebras: windows named by suffix, float-second resets", () => {
    const { windows } = parseGenericResponse({ ...cerebras, observedAtMs, provider: "cerebras" });
    expect(windows.map((w) => [w.windowId, w.resetAt])).toEqual([
      ["rpd", "2026-06-01T21:10:11.382Z"],
      ["tpm", "2026-06-01T12:00:11.380Z"],
    ]);
  });

  it("Mistral: per-minute and per-month token budgets", () => {
    const { windows } = parseGenericResponse({ ...mistral, observedAtMs, provider: "mistral" });
    expect(windows.map((w) => [w.windowId, w.remainingPercent, w.resetAt])).toEqual([
      ["tpm", 93.5986, "2026-06-01T12:00:40.000Z"],
      ["monthly", 99.996799, null],
    ]);
  });

  it("DeepSeek 402 Insufficient Balance is credits_exhausted", () => {
    const { failure, windows } = parseGenericResponse({
      ...deepseek402,
      observedAtMs,
      provider: "deepseek",
    });
    expect(failure?.kind).toBe("credits_exhausted");
    expect(windows).toEqual([
      expect.objectContaining({ windowId: "credits", status: "exhausted" }),
    ]);
  });

  it("falls back to the IETF RateLimit fields", () => {
    const { windows } = parseGenericResponse({
      status: 200,
      headers: { "ratelimit-policy": '"default";q=100;w=60', ratelimit: '"default";r=10;t=5' },
      observedAtMs,
      provider: "ollama",
    });
    expect(windows).toEqual([
      expect.objectContaining({ windowId: "default", remainingPercent: 10 }),
    ]);
  });

  it("a 503 is overloaded, a 401 auth_invalid, a plain 200 says nothing", () => {
    expect(parseGenericResponse({ status: 503, headers: {}, observedAtMs }).failure?.kind).toBe(
      "overloaded",
    );
    expect(parseGenericResponse({ status: 401, headers: {}, observedAtMs }).failure?.kind).toBe(
      "auth_invalid",
    );
    expect(parseGenericResponse({ status: 200, headers: {}, observedAtMs })).toEqual({
      windows: [],
    });
  });
});
