import { describe, expect, it } from "vitest";
import claudeUsage from "./__fixtures__/claude-oauth-usage.json";
import claude429 from "./__fixtures__/claude-subscription-429-five-hour.json";
import codeAssist from "./__fixtures__/code-assist-quota.json";
import codex200 from "./__fixtures__/codex-200-pro.json";
import codexUsage from "./__fixtures__/codex-usage.json";
import copilotUser from "./__fixtures__/copilot-user-paid.json";
import gemini429 from "./__fixtures__/gemini-429-quota-failure.json";
import groq200 from "./__fixtures__/groq-200.json";
import openrouterKey from "./__fixtures__/openrouter-key.json";
import {
  isSilentSuccess,
  parseResponseSignals,
  parseUsagePayload,
  USAGE_ENDPOINT_PARSERS,
} from "./parse-response-signals";

const observedAtMs = Date.parse("2026-03-25T20:25:06.000Z");

describe("parseResponseSignals", () => {
  it("routes claude to the subscription parser", () => {
    expect(parseResponseSignals("claude", { ...claude429, observedAtMs }).failure?.windowId).toBe(
      "5h",
    );
  });

  it("routes codex by window minutes", () => {
    const windows = parseResponseSignals("codex", { ...codex200, observedAtMs }).windows;
    expect(windows.some((w) => w.windowId === "7d")).toBe(true);
  });

  it("routes google, gemini-code-assist and antigravity to the Gemini parser", () => {
    for (const provider of ["google", "gemini-code-assist", "antigravity"]) {
      expect(parseResponseSignals(provider, { ...gemini429, observedAtMs }).failure?.kind).toBe(
        "window_exhausted",
      );
    }
  });

  it("routes anything else to the generic parser with its provider id (groq per day)", () => {
    const windows = parseResponseSignals("groq", { ...groq200, observedAtMs }).windows;
    expect(windows[0]?.windowId).toBe("rpd");
    const openai = parseResponseSignals("openai", { ...groq200, observedAtMs }).windows;
    expect(openai[0]?.windowId).toBe("rpm");
    expect(
      parseResponseSignals("some-new-server", { ...groq200, observedAtMs }).windows[0]?.windowId,
    ).toBe("rpm");
  });

  it("ignores prototype keys as provider ids", () => {
    expect(parseResponseSignals("constructor", { status: 200, headers: {}, observedAtMs })).toEqual(
      {
        windows: [],
      },
    );
  });
});

describe("parseUsagePayload", () => {
  it("has a parser for every provider with a usage endpoint", () => {
    expect(Object.keys(USAGE_ENDPOINT_PARSERS).sort()).toEqual([
      "antigravity",
      "claude",
      "codex",
      "gemini-code-assist",
      "github-copilot",
      "openrouter",
    ]);
  });

  it.each([
    ["claude", claudeUsage, "5h"],
    ["codex", codexUsage, "5h"],
    ["github-copilot", copilotUser, "premium_interactions"],
    ["gemini-code-assist", codeAssist, "requests:gemini-3.1-pro-preview"],
    ["openrouter", openrouterKey, "credits"],
  ])("%s payload gives its windows", (provider, payload, firstWindowId) => {
    expect(parseUsagePayload(provider, payload, observedAtMs)[0]?.windowId).toBe(firstWindowId);
  });

  it("a provider without a usage endpoint gives no windows", () => {
    expect(parseUsagePayload("groq", { anything: 1 }, observedAtMs)).toEqual([]);
    expect(parseUsagePayload("toString", {}, observedAtMs)).toEqual([]);
  });
});

describe("isSilentSuccess", () => {
  const plain = { "content-type": "application/json", date: "Sat, 05 Dec 2026 00:00:00 GMT" };

  it("is true for a 2xx or 3xx with no body and headers no parser reads", () => {
    expect(isSilentSuccess({ status: 200, headers: plain, observedAtMs })).toBe(true);
    expect(isSilentSuccess({ status: 304, headers: {}, observedAtMs })).toBe(true);
  });

  it("is false once a header name holds a fragment a parser reads, in any case", () => {
    for (const name of [
      "X-RateLimit-Limit-Requests",
      "retry-after",
      "X-RATELIMIT-RESET",
      "x-goog-quota-user",
      "anthropic-ratelimit-unified-status",
      "x-codex-primary-used-percent",
      "X-Usage-Remaining",
      "x-litellm-llm_provider-x",
      "X-MS-Region",
    ]) {
      const headers = { ...plain, [name]: "1" };
      expect(isSilentSuccess({ status: 200, headers, observedAtMs }), name).toBe(false);
    }
  });

  it("is false for a failure, a body, or headers it cannot walk as a record", () => {
    expect(isSilentSuccess({ status: 429, headers: plain, observedAtMs })).toBe(false);
    expect(isSilentSuccess({ status: 200, headers: plain, body: {}, observedAtMs })).toBe(false);
    expect(isSilentSuccess({ status: 200, headers: new Headers(plain), observedAtMs })).toBe(false);
    expect(isSilentSuccess(null as never)).toBe(false);
  });
});
