import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import {
  boundSignals,
  parseResponseSignals,
  parseUsagePayload,
} from "./signals/parse-response-signals";
import {
  LONGEST_WINDOW_MS,
  PLAUSIBILITY_SKEW_MS,
  UNKNOWN_WINDOW_MS,
  windowHorizonMs,
} from "./time-plausibility";
import type { UpstreamFailure } from "./upstream-failure";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const PROVIDERS = [
  "claude",
  "anthropic",
  "openai",
  "codex",
  "github-copilot",
  "google",
  "openrouter",
  "groq",
];

/** Seconds, epoch seconds, epoch ms and dates from plausible to absurd. */
const timeValue = fc.oneof(
  fc.integer({ min: 0, max: 2_000_000_000 }).map(String),
  fc.constantFrom("999999999", "4102444800", "1774472400", "99999999999999", "0", "-5", "1e9"),
  fc
    .integer({ min: 0, max: 400 * 365 })
    .map((days) => String(Math.floor(NOW / 1000) + days * 86_400)),
  fc.integer({ min: 0, max: 400 * 365 }).map((days) => new Date(NOW + days * DAY).toUTCString()),
);
const timeHeaders = [
  "retry-after",
  "retry-after-ms",
  "anthropic-ratelimit-unified-reset",
  "anthropic-ratelimit-unified-5h-reset",
  "anthropic-ratelimit-unified-7d-reset",
  "anthropic-ratelimit-requests-reset",
  "x-codex-primary-reset-at",
  "x-codex-primary-reset-after-seconds",
  "x-codex-secondary-reset-at",
  "x-ratelimit-reset-requests",
  "x-ratelimit-reset",
  "ratelimit-reset",
];
const otherHeaders = {
  "anthropic-ratelimit-unified-status": fc.constantFrom("allowed", "rejected", "allowed_warning"),
  "anthropic-ratelimit-unified-representative-claim": fc.constantFrom(
    "five_hour",
    "seven_day",
    "overage",
  ),
  "anthropic-ratelimit-unified-5h-utilization": fc.constantFrom("0.2", "1.0"),
  "anthropic-ratelimit-unified-7d-utilization": fc.constantFrom("0.5", "1.0"),
  "x-codex-primary-used-percent": fc.constantFrom("12", "100"),
  "x-codex-primary-window-minutes": fc.constantFrom("300", "10080", "999999999", "0"),
  "x-ratelimit-remaining-requests": fc.constantFrom("0", "10"),
  "x-ratelimit-limit-requests": fc.constantFrom("100"),
};

const responseInput = fc.record({
  provider: fc.constantFrom(...PROVIDERS),
  status: fc.constantFrom(200, 402, 429, 503),
  headers: fc.record(
    {
      ...Object.fromEntries(timeHeaders.map((name) => [name, timeValue])),
      ...otherHeaders,
    },
    { requiredKeys: [] },
  ),
  body: fc.oneof(
    fc.constant(undefined),
    fc.record({
      error: fc.record(
        {
          type: fc.constantFrom("usage_limit_reached", "rate_limit_error"),
          resets_at: fc.integer({ min: 0, max: 9_999_999_999 }),
          resets_in_seconds: fc.integer({ min: 0, max: 999_999_999 }),
          message: fc.constantFrom("try again in 9999 hours", "wait 6 seconds"),
        },
        { requiredKeys: [] },
      ),
    }),
  ),
});

function aheadMs(iso: string | null | undefined): number {
  return iso ? Date.parse(iso) - NOW : Number.NEGATIVE_INFINITY;
}

describe("time plausibility", () => {
  it("horizons by window", () => {
    expect(windowHorizonMs("5h")).toBe(5 * HOUR);
    expect(windowHorizonMs("7d:opus")).toBe(7 * DAY);
    expect(windowHorizonMs("premium_interactions")).toBe(31 * DAY);
    expect(windowHorizonMs("free_daily")).toBe(DAY);
    expect(windowHorizonMs(undefined)).toBe(UNKNOWN_WINDOW_MS);
    expect(windowHorizonMs("rpm", 60)).toBe(60_000);
    expect(windowHorizonMs("x", 10 ** 12)).toBe(LONGEST_WINDOW_MS);
  });

  it("a unified reset ten years ahead reads as unknown and is reported", () => {
    const tenYears = String(Math.floor(NOW / 1000) + 10 * 365 * 86_400);
    const signals = parseResponseSignals("claude", {
      status: 429,
      headers: {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "anthropic-ratelimit-unified-reset": tenYears,
        "anthropic-ratelimit-unified-5h-reset": tenYears,
        "anthropic-ratelimit-unified-5h-utilization": "1.0",
      },
      observedAtMs: NOW,
    });
    const fiveHour = signals.windows.find((w) => w.windowId === "5h");
    expect(fiveHour).toMatchObject({ status: "exhausted", resetAt: null });
    expect(signals.failure).toMatchObject({
      kind: "window_exhausted",
      resetAt: null,
      retryAt: null,
    });
    expect(signals.implausible?.map((i) => [i.windowId, i.field])).toEqual([
      ["5h", "resetAt"],
      ["5h", "resetAt"],
      ["5h", "retryAt"],
    ]);
  });

  it("retry-after: 999999999 cools a connection for the bounded backoff, not for years", () => {
    const cooldowns = createCooldownBook({ now: () => NOW });
    const signals = parseResponseSignals("github-copilot", {
      status: 429,
      headers: { "retry-after": "999999999" },
      body: { error: { code: "rate_limited", message: "slow down" } },
      observedAtMs: NOW,
    });
    expect(signals.implausible).toContainEqual(
      expect.objectContaining({ field: "retryAt", source: "retry-after" }),
    );
    const cooldown = cooldowns.fail("copilot", signals.failure!);
    expect(cooldown.durationMs).toBeLessThanOrEqual(15 * 60_000);
    // The book bounds a failure built by hand the same way.
    const raw: UpstreamFailure = {
      kind: "rate_limited",
      retryAt: new Date(NOW + 999_999_999_000).toISOString(),
      resetAt: null,
    };
    expect(cooldowns.fail("other", raw).durationMs).toBeLessThanOrEqual(15 * 60_000);
  });

  it("a legitimate long reset within its window is kept", () => {
    const signals = parseResponseSignals("github-copilot", {
      status: 429,
      headers: { "retry-after": "604800" },
      body: { error: { code: "user_weekly_rate_limited", message: "weekly" } },
      observedAtMs: NOW,
    });
    expect(signals.implausible).toBeUndefined();
    expect(aheadMs(signals.failure?.resetAt)).toBe(7 * DAY);
  });

  it("property: no response makes a reset, retry or cooldown past its window's bound", () => {
    const cooldownCeiling = Math.max(15 * 60_000, 60 * 60_000, 24 * HOUR);
    fc.assert(
      fc.property(responseInput, (input) => {
        const signals = parseResponseSignals(input.provider, {
          status: input.status,
          headers: input.headers as Record<string, string>,
          body: input.body,
          observedAtMs: NOW,
        });
        for (const window of signals.windows) {
          expect(aheadMs(window.resetAt)).toBeLessThanOrEqual(
            windowHorizonMs(window.windowId, window.windowSeconds) + PLAUSIBILITY_SKEW_MS,
          );
        }
        const failure = signals.failure;
        if (!failure) return;
        const bound = LONGEST_WINDOW_MS + PLAUSIBILITY_SKEW_MS;
        expect(aheadMs(failure.resetAt)).toBeLessThanOrEqual(bound);
        expect(aheadMs(failure.retryAt)).toBeLessThanOrEqual(bound);
        const book = createCooldownBook({ now: () => NOW });
        const cooldown = book.fail("c", failure, { model: "m" });
        expect(cooldown.durationMs).toBeLessThanOrEqual(Math.max(cooldownCeiling, bound));
        const cache = createQuotaCache({ now: () => NOW });
        cache.observe("c", signals.windows);
        cache.observeFailure("c", failure, { model: "m" });
        for (const window of cache.get("", "c", "m")?.windows ?? []) {
          expect(aheadMs(window.resetAt)).toBeLessThanOrEqual(bound);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("property: no failure handed to the cooldown book or the cache outlives the bounds", () => {
    const failure = fc.record({
      kind: fc.constantFrom(
        "rate_limited",
        "window_exhausted",
        "credits_exhausted",
        "overloaded",
        "money_refusal",
        "misconfigured",
      ) as fc.Arbitrary<UpstreamFailure["kind"]>,
      retryAt: fc.option(
        fc.integer({ min: 0, max: 8.64e15 - NOW }).map((ms) => new Date(NOW + ms).toISOString()),
        { nil: null },
      ),
      resetAt: fc.option(
        fc.integer({ min: 0, max: 8.64e15 - NOW }).map((ms) => new Date(NOW + ms).toISOString()),
        { nil: null },
      ),
      windowId: fc.option(
        fc.constantFrom("5h", "7d", "premium_interactions", "free_daily", "credits"),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(failure, (raw) => {
        const input: UpstreamFailure = {
          kind: raw.kind,
          retryAt: raw.retryAt,
          resetAt: raw.resetAt,
        };
        if (raw.windowId) input.windowId = raw.windowId;
        const bound = windowHorizonMs(raw.windowId) + PLAUSIBILITY_SKEW_MS;
        const cooldown = createCooldownBook({ now: () => NOW }).fail("c", input);
        expect(cooldown.durationMs).toBeLessThanOrEqual(Math.max(bound, 60 * 60_000));
        const cache = createQuotaCache({ now: () => NOW });
        cache.observeFailure("c", input);
        expect(aheadMs(cache.get("", "c")?.resetAt)).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 500 },
    );
  });

  it("usage payloads are bounded too: a Copilot reset a century ahead is dropped", () => {
    const payload = {
      quota_reset_date_utc: "2126-03-01T00:00:00.000Z",
      quota_snapshots: { premium_interactions: { percent_remaining: 10, entitlement: 300 } },
    };
    const implausible: never[] = [];
    const windows = parseUsagePayload("github-copilot", payload, NOW, implausible);
    expect(windows[0]?.resetAt).toBeNull();
    expect(implausible).toHaveLength(1);
  });

  it("boundSignals bounds a reading from any parser, a caller's own included, and leaves a plausible one alone", () => {
    const window = {
      windowId: "5h",
      remainingPercent: 40,
      resetAt: new Date(NOW + 30 * DAY).toISOString(),
      status: "ok" as const,
      source: "zai:usage",
      observedAt: new Date(NOW).toISOString(),
      windowSeconds: 18_000,
    };
    const failure: UpstreamFailure = {
      kind: "window_exhausted",
      retryAt: null,
      resetAt: new Date(NOW + 400 * DAY).toISOString(),
      code: "1310",
    };
    const bounded = boundSignals({ windows: [window], failure }, NOW);
    expect(bounded.windows[0]?.resetAt).toBeNull();
    expect(bounded.failure?.resetAt).toBeNull();
    expect(bounded.implausible?.map((t) => `${t.windowId}:${t.field}`)).toEqual([
      "5h:resetAt",
      "null:resetAt",
    ]);

    const fine = { windows: [{ ...window, resetAt: new Date(NOW + HOUR).toISOString() }] };
    expect(boundSignals(fine, NOW)).toEqual(fine);
    expect(fine.windows[0]?.resetAt).not.toBeNull();
    const empty = { windows: [] };
    expect(boundSignals(empty, NOW)).toBe(empty);
  });
});
