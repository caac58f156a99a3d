import { describe, expect, it } from "vitest";
import anthropic529 from "./__fixtures__/anthropic-api-529.json";
import claude429 from "./__fixtures__/claude-subscription-429-five-hour.json";
import claudeHeaderless from "./__fixtures__/claude-subscription-429-headerless.json";
import codex200 from "./__fixtures__/codex-200-pro.json";
import codexUsage from "./__fixtures__/codex-usage.json";
import copilotOverdrawn from "./__fixtures__/copilot-user-overdrawn.json";
import gemini429Bare from "./__fixtures__/gemini-429-bare.json";
import gemini503 from "./__fixtures__/gemini-503.json";
import groq200 from "./__fixtures__/groq-200.json";
import openaiInsufficient from "./__fixtures__/openai-429-insufficient-quota.json";
import openaiPlaceholders from "./__fixtures__/openai-azure-placeholders.json";
import openrouterFreeDaily from "./__fixtures__/openrouter-429-free-daily.json";
import openrouterUpstream from "./__fixtures__/openrouter-429-upstream.json";
import { parseAnthropicApiResponse } from "./anthropic-api";
import { parseClaudeOauthUsage } from "./claude-oauth-usage";
import { parseClaudeSubscriptionResponse } from "./claude-subscription";
import { parseCodeAssistQuota } from "./code-assist-quota";
import { parseCodexResponse } from "./codex";
import { parseCodexUsage } from "./codex-usage";
import { parseCopilotResponse } from "./copilot";
import { parseCopilotQuota } from "./copilot-quota";
import { parseGeminiResponse } from "./gemini";
import { parseGenericResponse } from "./generic";
import { parseOpenAiResponse } from "./openai";
import { parseOpenRouterResponse } from "./openrouter";
import { parseGoDuration } from "./parse-go-duration";
import { parseProseRetryHint } from "./parse-prose-retry-hint";
import { parseRetryAfter } from "./parse-retry-after";

const observedAtMs = Date.parse("2026-03-25T20:25:06.000Z");

/** quota-signals.md §13, one test per pitfall. */
describe("quota-signals §13 pitfalls", () => {
  it("pitfall 1: fraction vs percent: 0.42 header fraction, 42 endpoint percent and 0.58 fraction remaining agree", () => {
    const header = parseClaudeSubscriptionResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-unified-5h-utilization": "0.42",
        "anthropic-ratelimit-unified-5h-reset": "1774472400",
      },
      observedAtMs,
    }).windows[0];
    const endpoint = parseClaudeOauthUsage(
      { five_hour: { utilization: 42, resets_at: "2026-03-25T21:00:00Z" } },
      observedAtMs,
    )[0];
    const gemini = parseCodeAssistQuota(
      { buckets: [{ modelId: "m", remainingFraction: 0.58 }] },
      observedAtMs,
    )[0];
    const codex = parseCodexUsage(
      { rate_limit: { primary_window: { used_percent: 42, limit_window_seconds: 18000 } } },
      observedAtMs,
    )[0];
    const copilot = parseCopilotQuota(
      { quota_snapshots: { premium_interactions: { percent_remaining: 58 } } },
      observedAtMs,
    )[0];
    for (const window of [header, endpoint, gemini, codex, copilot]) {
      expect(window?.remainingPercent).toBe(58);
    }
  });

  it("pitfall 2: epoch seconds vs milliseconds: Claude reset in seconds and OpenRouter reset in ms land on real dates", () => {
    const claude = parseClaudeSubscriptionResponse({ ...claude429, observedAtMs });
    expect(claude.windows[0]?.resetAt).toBe("2026-03-25T21:00:00.000Z");
    const openrouter = parseOpenRouterResponse({ ...openrouterFreeDaily, observedAtMs });
    expect(openrouter.windows[0]?.resetAt).toBe("2026-09-01T00:00:00.000Z");
    const zero = parseClaudeSubscriptionResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-unified-5h-utilization": "0.5",
        "anthropic-ratelimit-unified-5h-reset": "0",
      },
      observedAtMs,
    });
    expect(zero.windows[0]?.resetAt).toBeNull();
  });

  it("pitfall 3: absolute vs relative: a relative reset becomes absolute at the observation instant", () => {
    const early = parseOpenAiResponse({
      status: 200,
      headers: {
        "x-ratelimit-limit-tokens": "100",
        "x-ratelimit-remaining-tokens": "50",
        "x-ratelimit-reset-tokens": "6m0s",
      },
      observedAtMs,
    });
    expect(early.windows[0]?.resetAt).toBe("2026-03-25T20:31:06.000Z");
    const anthropic = parseAnthropicApiResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-requests-limit": "10",
        "anthropic-ratelimit-requests-remaining": "5",
        "anthropic-ratelimit-requests-reset": "2026-03-25T20:26:00Z",
      },
      observedAtMs: observedAtMs + 3_600_000,
    });
    // Absolute resets do not move with the observation time.
    expect(anthropic.windows[0]?.resetAt).toBe("2026-03-25T20:26:00.000Z");
  });

  it("pitfall 4: duration grammar: the regex is anchored, 1m30.5s is 90.5 s, prose forms read", () => {
    expect(parseGoDuration("1m30.5s")).toBe(90_500);
    expect(parseGoDuration("2m59.56s")).toBe(179_560);
    expect(parseGoDuration("976.066617ms")).toBeCloseTo(976.066617, 6);
    expect(parseGoDuration("1m30.5s trailing")).toBeNull();
    expect(parseProseRetryHint("try again in 28ms")).toBe(28);
    expect(parseProseRetryHint("Please try again in 58 hours")).toBe(58 * 3_600_000);
    expect(parseProseRetryHint("wait 2 minutes")).toBe(120_000);
  });

  it("pitfall 5: Retry-After has two forms, negatives clamp to now, long waits are not capped", () => {
    expect(parseRetryAfter({ "retry-after": "Thu, 26 Mar 2026 20:25:06 GMT" }, observedAtMs)).toBe(
      "2026-03-26T20:25:06.000Z",
    );
    expect(parseRetryAfter({ "retry-after": "-5" }, observedAtMs)).toBe("2026-03-25T20:25:06.000Z");
    expect(parseRetryAfter({ "retry-after": "121180" }, observedAtMs)).toBe(
      new Date(observedAtMs + 121_180_000).toISOString(),
    );
    expect(parseRetryAfter({ "retry-after-ms": "1500", "retry-after": "99" }, observedAtMs)).toBe(
      new Date(observedAtMs + 1_500).toISOString(),
    );
  });

  it("pitfall 6: empty and odd values: empty reset-at, True/False, -1/0 placeholders and all-zero windows are absent", () => {
    const codex = parseCodexResponse({ ...codex200, observedAtMs });
    expect(codex.windows.some((w) => w.windowId === "secondary")).toBe(false);
    expect(codex.windows.every((w) => w.resetAt !== null)).toBe(true);
    expect(parseOpenAiResponse({ ...openaiPlaceholders, observedAtMs }).windows).toEqual([]);
    const claudeZero = parseClaudeSubscriptionResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-unified-7d-utilization": "0",
        "anthropic-ratelimit-unified-7d-reset": "",
      },
      observedAtMs,
    });
    expect(claudeZero.windows).toEqual([]);
  });

  it("pitfall 7: slot names lie: Codex primary at 10080 minutes is 7d; the Claude claim, not the largest use, binds", () => {
    const codex = parseCodexResponse({ ...codex200, observedAtMs });
    expect(codex.windows.find((w) => !w.scope)?.windowId).toBe("7d");
    const claude = parseClaudeSubscriptionResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-unified-status": "allowed",
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "anthropic-ratelimit-unified-5h-utilization": "0.3",
        "anthropic-ratelimit-unified-5h-reset": "1774472400",
        "anthropic-ratelimit-unified-7d-utilization": "1.0",
        "anthropic-ratelimit-unified-7d-reset": "1774580400",
      },
      observedAtMs,
    });
    const weekly = claude.windows.find((w) => w.windowId === "7d");
    expect(weekly?.remainingPercent).toBe(0);
    expect(weekly?.status).not.toBe("exhausted");
    expect(claude.failure).toBeUndefined();
  });

  it("pitfall 8: per-model vs account-wide: model windows carry a model scope, account windows none", () => {
    const usage = parseClaudeOauthUsage(
      {
        seven_day: { utilization: 10, resets_at: "2026-03-30T00:00:00Z" },
        seven_day_opus: { utilization: 100, resets_at: "2026-03-30T00:00:00Z" },
      },
      observedAtMs,
    );
    expect(usage.find((w) => w.windowId === "7d")?.scope).toBeUndefined();
    expect(usage.find((w) => w.windowId === "7d:opus")).toMatchObject({
      scope: { model: "opus" },
      status: "exhausted",
    });
    const spark = parseCodexUsage(codexUsage, observedAtMs).filter((w) => w.scope);
    expect(spark.every((w) => w.scope?.model === "gpt-5.3-codex-spark")).toBe(true);
    const scoped429 = parseCopilotResponse({
      status: 429,
      headers: { "retry-after": "30" },
      body: { error: { code: "user_model_rate_limited", message: "wait" } },
      observedAtMs,
      model: "gpt-5",
    });
    expect(scoped429.failure?.scope).toEqual({ model: "gpt-5" });
  });

  it("pitfall 9: headerless 429s: no reset is invented", () => {
    const claude = parseClaudeSubscriptionResponse({
      ...claudeHeaderless,
      observedAtMs,
      model: "claude-opus-4-1",
    });
    expect(claude.failure).toMatchObject({ retryAt: null, resetAt: null });
    const gemini = parseGeminiResponse({ ...gemini429Bare, observedAtMs });
    expect(gemini.failure).toMatchObject({ retryAt: null, resetAt: null });
    const openrouter = parseOpenRouterResponse({ ...openrouterUpstream, observedAtMs });
    expect(openrouter.failure).toMatchObject({ retryAt: null, resetAt: null });
  });

  it("pitfall 10: quota vs capacity: 529, 503 and upstream pools are overloaded; insufficient_quota is a hard stop", () => {
    const anthropic = parseAnthropicApiResponse({ ...anthropic529, observedAtMs });
    expect(anthropic.failure?.kind).toBe("overloaded");
    expect(anthropic.windows.some((w) => w.status === "exhausted")).toBe(false);
    expect(parseGeminiResponse({ ...gemini503, observedAtMs }).failure?.kind).toBe("overloaded");
    expect(parseOpenRouterResponse({ ...openrouterUpstream, observedAtMs }).failure?.kind).toBe(
      "overloaded",
    );
    expect(parseOpenAiResponse({ ...openaiInsufficient, observedAtMs }).failure?.kind).toBe(
      "credits_exhausted",
    );
  });

  it("pitfall 11: requests windows differ: OpenAI requests per minute, Groq requests per day", () => {
    const openai = parseOpenAiResponse({ ...groq200, observedAtMs });
    const groq = parseGenericResponse({ ...groq200, observedAtMs, provider: "groq" });
    expect(openai.windows[0]).toMatchObject({ windowId: "rpm", windowSeconds: 60 });
    expect(groq.windows[0]).toMatchObject({ windowId: "rpd", windowSeconds: 86_400 });
  });

  it("pitfall 12: reset is not retry: the retry instant comes from Retry-After, the reset from the headers", () => {
    const { failure } = parseOpenAiResponse({
      status: 429,
      headers: {
        "retry-after": "2",
        "x-ratelimit-limit-tokens": "100",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "6m0s",
      },
      body: { error: { code: "rate_limit_exceeded", message: "Please try again in 1.5s" } },
      observedAtMs,
    });
    expect(failure?.retryAt).toBe(new Date(observedAtMs + 2_000).toISOString());
  });

  it("pitfall 13: rounding: Anthropic's rounded token remaining is reported as sent, not as consumption", () => {
    const { windows } = parseAnthropicApiResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-tokens-limit": "96000",
        "anthropic-ratelimit-tokens-remaining": "96000",
        "anthropic-ratelimit-tokens-reset": "2026-03-25T20:26:00Z",
      },
      observedAtMs,
    });
    expect(windows[0]).toMatchObject({ remainingPercent: 100, status: "ok" });
  });

  it("pitfall 14: out of range: negative Copilot percent and 1.02 Claude use clamp, raw kept", () => {
    const copilot = parseCopilotQuota(copilotOverdrawn, observedAtMs)[0];
    expect(copilot?.remainingPercent).toBe(0);
    expect(copilot?.rawUsedPercent).toBeGreaterThan(100);
    const claude = parseClaudeSubscriptionResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-unified-7d_oi-utilization": "1.02",
        "anthropic-ratelimit-unified-7d_oi-reset": "1774580400",
      },
      observedAtMs,
    }).windows[0];
    expect(claude).toMatchObject({ remainingPercent: 0, rawUsedPercent: 102 });
  });

  it("pitfall 15: timezones: microsecond +00:00 resets, bare dates at UTC midnight", () => {
    const claude = parseClaudeOauthUsage(
      { five_hour: { utilization: 1, resets_at: "2026-01-02T19:59:59.600956+00:00" } },
      observedAtMs,
    )[0];
    expect(claude?.resetAt).toBe("2026-01-02T19:59:59.600Z");
    const copilot = parseCopilotQuota(
      {
        quota_reset_date: "2026-04-01",
        quota_snapshots: { premium_interactions: { percent_remaining: 5 } },
      },
      observedAtMs,
    )[0];
    expect(copilot?.resetAt).toBe("2026-04-01T00:00:00.000Z");
  });

  it("pitfall 16: attribution: parsers carry no account id and depend only on their input", () => {
    const a = parseClaudeSubscriptionResponse({ ...claude429, observedAtMs });
    const b = parseClaudeSubscriptionResponse({ ...claude429, observedAtMs });
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).not.toMatch(/connection|account/i);
  });

  it("pitfall 17: polling: each reading carries its own observedAt so the newer one wins in the cache", () => {
    const header = parseCodexResponse({ ...codex200, observedAtMs: observedAtMs + 1_000 })
      .windows[0];
    const endpoint = parseCodexUsage(codexUsage, observedAtMs)[0];
    expect(header?.observedAt).toBe(new Date(observedAtMs + 1_000).toISOString());
    expect(endpoint?.observedAt).toBe(new Date(observedAtMs).toISOString());
  });

  it("pitfall 18: case-insensitive headers and -/_ in limit ids", () => {
    const upper = parseClaudeSubscriptionResponse({
      status: 429,
      headers: Object.fromEntries(
        Object.entries(claude429.headers).map(([name, value]) => [name.toUpperCase(), value]),
      ),
      body: claude429.body,
      observedAtMs,
    });
    expect(upper).toEqual(parseClaudeSubscriptionResponse({ ...claude429, observedAtMs }));
    const codex = parseCodexResponse({
      status: 200,
      headers: new Headers({
        "X-Codex-Gpt-Spark-Primary-Used-Percent": "10",
        "X-Codex-Gpt-Spark-Primary-Window-Minutes": "300",
      }),
      observedAtMs,
    });
    expect(codex.windows[0]?.windowId).toBe("5h:codex_gpt_spark");
  });

  it("pitfall 19: scope and permission failures are auth_invalid, not exhausted", () => {
    for (const failure of [
      parseClaudeSubscriptionResponse({ status: 403, headers: {}, observedAtMs }).failure,
      parseCopilotResponse({ status: 401, headers: {}, observedAtMs }).failure,
      parseGeminiResponse({
        status: 403,
        headers: {},
        body: { error: { code: 403, status: "PERMISSION_DENIED", message: "VALIDATION_REQUIRED" } },
        observedAtMs,
      }).failure,
    ]) {
      expect(failure?.kind).toBe("auth_invalid");
    }
  });
});
