import { clampCooldownToReset, type QuotaState } from "@planfirst/quota-cache";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { at, NOW_MS, reading, testOptions } from "./ladder-test-support";
import { orderPoolByRung } from "./order-pool";
import { assessQuota, isOutcomeUsable, isQuotaUsable, isStateUsable } from "./quota-usability";
import { filterSubscriptionOnlyCandidates } from "./subscription-only";

const now = () => NOW_MS;
const admit = { now, admitUnknownQuota: true };
const refuse = { now, admitUnknownQuota: false };

describe("isQuotaUsable", () => {
  it("Q1 no state defers to admitUnknownQuota (default true)", () => {
    expect(isQuotaUsable(undefined, admit)).toBe(true);
    expect(isQuotaUsable(null, refuse)).toBe(false);
    expect(isQuotaUsable(undefined, { now })).toBe(true);
  });

  it("Q2 exhausted is unusable even when the reading is old", () => {
    expect(isQuotaUsable(reading({ status: "exhausted", remainingPercent: 80 }), admit)).toBe(
      false,
    );
    const old = reading({ status: "exhausted", checkedAt: at(-3_600_000) });
    expect(isQuotaUsable(old, admit)).toBe(false);
  });

  it("Q3 unknown status defers to admitUnknownQuota", () => {
    const unknown = reading({ status: "unknown", remainingPercent: 0 });
    expect(isQuotaUsable(unknown, admit)).toBe(true);
    expect(isQuotaUsable(unknown, refuse)).toBe(false);
  });

  it("Q4 an unparseable or older-than-maxStateAgeMs checkedAt defers to admitUnknownQuota; exactly equal is fresh", () => {
    const stale = reading({ remainingPercent: 1, checkedAt: at(-180_001) });
    expect(isQuotaUsable(stale, admit)).toBe(true);
    expect(isQuotaUsable(stale, refuse)).toBe(false);
    expect(isQuotaUsable(reading({ checkedAt: "yesterday" }), refuse)).toBe(false);
    expect(isQuotaUsable(reading({ checkedAt: "yesterday" }), admit)).toBe(true);
    expect(isQuotaUsable(reading({ checkedAt: at(-180_000) }), refuse)).toBe(true);
    expect(
      isQuotaUsable(reading({ checkedAt: at(-60_001) }), { ...refuse, maxStateAgeMs: 60_000 }),
    ).toBe(false);
  });

  it("Q5 a null remainingPercent defers to admitUnknownQuota", () => {
    expect(isQuotaUsable(reading({ remainingPercent: null }), admit)).toBe(true);
    expect(isQuotaUsable(reading({ remainingPercent: null }), refuse)).toBe(false);
  });

  it("Q6 usable only strictly above the exit cutoff (default 2); NaN and negatives are unusable", () => {
    expect(isQuotaUsable(reading({ remainingPercent: 2 }), refuse)).toBe(false);
    expect(isQuotaUsable(reading({ remainingPercent: 2.01 }), refuse)).toBe(true);
    expect(isQuotaUsable(reading({ remainingPercent: Number.NaN }), admit)).toBe(false);
    expect(isQuotaUsable(reading({ remainingPercent: -5 }), admit)).toBe(false);
    expect(
      isQuotaUsable(reading({ remainingPercent: 9 }), { ...refuse, exitCutoffPercent: 10 }),
    ).toBe(false);
  });

  it("Q6 once exhausted, the threshold is max(reentryMinRemainingPercent, exitCutoffPercent)", () => {
    const latched = reading({ remainingPercent: 4, hasBeenExhausted: true });
    expect(isQuotaUsable(latched, refuse)).toBe(false);
    expect(isQuotaUsable(latched, refuse, false)).toBe(true);
    expect(isQuotaUsable(reading({ remainingPercent: 6 }), refuse, true)).toBe(true);
    expect(
      isQuotaUsable(
        reading({ remainingPercent: 6 }),
        { ...refuse, reentryMinRemainingPercent: 10 },
        true,
      ),
    ).toBe(false);
    // A re-entry floor below the exit cutoff never lowers the bar.
    const options = { ...refuse, exitCutoffPercent: 8, reentryMinRemainingPercent: 5 };
    expect(isQuotaUsable(reading({ remainingPercent: 7 }), options, true)).toBe(false);
  });

  it("S1 a reading kept past the 180 s default no longer verifies a plan connection", () => {
    const kept = reading({ remainingPercent: 80, checkedAt: at(-181_000) });
    expect(isQuotaUsable(kept, refuse)).toBe(false);
    expect(isQuotaUsable(reading({ remainingPercent: 80, checkedAt: at(-179_000) }), refuse)).toBe(
      true,
    );
  });

  it("S2 a reading whose resetAt has passed is stale regardless of its age", () => {
    const resetPassed = reading({
      status: "exhausted",
      remainingPercent: 0,
      resetAt: at(-1),
      checkedAt: at(-5_000),
    });
    expect(isQuotaUsable(resetPassed, refuse)).toBe(false);
    expect(isQuotaUsable(resetPassed, admit)).toBe(true);
    expect(isQuotaUsable(reading({ status: "exhausted", resetAt: at(1) }), admit)).toBe(false);
    expect(isQuotaUsable(reading({ status: "exhausted", resetAt: at(0) }), admit)).toBe(true);
  });

  it("S3 a fresh exhausted reading of the binding window stops gating the plan the moment its window resets", () => {
    const options = testOptions({
      authTypes: { max: "oauth", key: "apikey" },
      states: {
        max: reading({
          status: "exhausted",
          remainingPercent: 0,
          resetAt: at(60_000),
          checkedAt: at(-1_000),
        }),
      },
      tiers: { "claude-sonnet-4-5": "premium" },
    });
    const pool = [
      {
        provider: "claude",
        model: "claude-sonnet-4-5",
        connectionId: null,
        allowedConnectionIds: ["max", "key"],
      },
    ];
    expect(orderPoolByRung(pool, options)[0]?.allowedConnectionIds).toEqual(["key"]);
    const afterReset = { ...options, now: () => NOW_MS + 60_000 };
    const ordered = orderPoolByRung(pool, afterReset);
    expect(ordered.map((c) => c.allowedConnectionIds)).toEqual([["max"], ["key"]]);
    // The strict id waits for a fresh reading instead of trusting a window that no longer exists.
    expect(filterSubscriptionOnlyCandidates(pool, afterReset)).toEqual([]);
  });

  it("S4 a cooldown clamped to the plan's reset lets the connection back in right after the reset", () => {
    const resetAt = at(90_000);
    const cooldownUntil = NOW_MS + clampCooldownToReset(15 * 60_000, resetAt, NOW_MS);
    expect(cooldownUntil).toBe(NOW_MS + 90_000);
    const options = (nowMs: number) =>
      testOptions(
        {
          authTypes: { max: "oauth" },
          states: {
            max: reading({ status: "exhausted", remainingPercent: 0, resetAt, checkedAt: at(0) }),
          },
        },
        { now: () => nowMs },
      );
    // The gateway drops connections in cooldown from the allowlist before the ladder runs.
    const poolAt = (nowMs: number) => [
      {
        provider: "claude",
        model: "claude-opus-4-1",
        connectionId: null,
        allowedConnectionIds: nowMs < cooldownUntil ? [] : ["max"],
      },
    ];
    expect(orderPoolByRung(poolAt(NOW_MS + 89_999), options(NOW_MS + 89_999))).toEqual([]);
    expect(orderPoolByRung(poolAt(NOW_MS + 90_000), options(NOW_MS + 90_000))).toHaveLength(1);
  });
});

/** The cache's latch (H1–H2) as quota-cache keeps it, reduced to one window. */
function latch(
  previous: boolean,
  next: { status: QuotaState["status"]; remainingPercent: number },
): boolean {
  if (next.status === "exhausted" || next.remainingPercent <= 2) return true;
  if (next.remainingPercent > 5) return false;
  return previous;
}

describe("hysteresis", () => {
  it("H1 H2 a connection hovering between 2 % and 5 % after exhaustion stays out until it reads above 5 %", () => {
    const readings: [number, QuotaState["status"], boolean][] = [
      [50, "available", true],
      [10, "available", true],
      [2, "available", false], // H1: at the cutoff, latched
      [3, "available", false],
      [4.9, "available", false],
      [5, "available", false], // not strictly above the floor
      [5.1, "available", true], // H2: fresh reading above the floor clears the latch
      [3, "available", true], // unlatched: only the 2 % cutoff applies
      [40, "exhausted", false], // H1: a quota 429 counts
      [4, "available", false],
      [6, "available", true],
    ];
    let hasBeenExhausted = false;
    for (const [remainingPercent, status, expected] of readings) {
      hasBeenExhausted = latch(hasBeenExhausted, { status, remainingPercent });
      const state = reading({ remainingPercent, status, hasBeenExhausted });
      expect(
        isQuotaUsable(state, { now, admitUnknownQuota: false }),
        `${remainingPercent}% ${status}`,
      ).toBe(expected);
    }
  });

  it("H2 a passed resetAt does not clear the latch by itself: the next fresh reading decides", () => {
    const latchedAfterReset = reading({
      remainingPercent: 4,
      hasBeenExhausted: true,
      resetAt: at(-1),
    });
    expect(isQuotaUsable(latchedAfterReset, { now, admitUnknownQuota: false })).toBe(false);
    const fresh = reading({ remainingPercent: 4, hasBeenExhausted: true, resetAt: at(3_600_000) });
    expect(isQuotaUsable(fresh, { now, admitUnknownQuota: true })).toBe(false);
  });

  it("H3 eligibility is recomputed from live quota at every pool build, with nothing remembered between builds", () => {
    const states: Record<string, QuotaState> = {
      max: reading({ status: "exhausted", remainingPercent: 0, hasBeenExhausted: true }),
    };
    const options = testOptions({
      authTypes: { max: "oauth", key: "apikey" },
      states,
      tiers: { "claude-sonnet-4-5": "cheap" },
    });
    const pool = [
      {
        provider: "claude",
        model: "claude-sonnet-4-5",
        connectionId: null,
        allowedConnectionIds: ["max", "key"],
      },
    ];
    expect(orderPoolByRung(pool, options).map((c) => c.allowedConnectionIds)).toEqual([["key"]]);
    states.max = reading({ remainingPercent: 90, hasBeenExhausted: false });
    expect(orderPoolByRung(pool, options).map((c) => c.allowedConnectionIds)).toEqual([
      ["max"],
      ["key"],
    ]);
  });
});

describe("decision path", () => {
  it("isStateUsable decides exactly as assessQuota + isOutcomeUsable (Q1–Q6, S2)", () => {
    const instant = fc.constantFrom(
      at(-1_000_000),
      at(-180_001),
      at(-180_000),
      at(-1),
      at(0),
      at(1),
      at(3_600_000),
      "garbage",
      "",
    );
    const stateArb: fc.Arbitrary<QuotaState | undefined> = fc.option(
      fc.record({
        status: fc.constantFrom("available", "exhausted", "unknown" as const),
        remainingPercent: fc.option(fc.constantFrom(-1, 0, 2, 2.5, 5, 5.5, 50, Number.NaN), {
          nil: null,
        }),
        resetAt: fc.option(instant, { nil: null }),
        checkedAt: instant,
        hasBeenExhausted: fc.boolean(),
        windows: fc.constant<QuotaState["windows"]>([]),
      }),
      { nil: undefined },
    );
    fc.assert(
      fc.property(stateArb, fc.boolean(), fc.constantFrom(2, 5), (state, admit, threshold) => {
        expect(isStateUsable(state, admit, 180_000, threshold, NOW_MS)).toBe(
          isOutcomeUsable(assessQuota(state, 180_000, threshold, NOW_MS), admit),
        );
      }),
      { numRuns: 5000 },
    );
  });
});
