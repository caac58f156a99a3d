import type { QuotaState } from "@planfirst/quota-cache";
import { describe, expect, it } from "vitest";
import { earliestUsefulReset } from "./earliest-useful-reset";
import { at, NOW_MS, reading } from "./ladder-test-support";
import { isQuotaUsable } from "./quota-usability";

const options = { now: () => NOW_MS };

describe("earliestUsefulReset", () => {
  it("a plan at 3 % after an exhaustion is out of the pool, and its reset counts (H2)", () => {
    const latched = reading({ remainingPercent: 3, hasBeenExhausted: true, resetAt: at(600_000) });
    // The same reading the ladder refuses is the one whose reset is reported.
    expect(isQuotaUsable(latched, options)).toBe(false);
    expect(earliestUsefulReset([latched], options)).toBe(NOW_MS + 600_000);
  });

  it("the same 3 % without the latch is in the pool and gives no reset", () => {
    const fresh = reading({ remainingPercent: 3, hasBeenExhausted: false, resetAt: at(600_000) });
    expect(isQuotaUsable(fresh, options)).toBe(true);
    expect(earliestUsefulReset([fresh], options)).toBeUndefined();
  });

  it("follows a configured re-entry floor and exit cutoff", () => {
    const latched = reading({ remainingPercent: 8, hasBeenExhausted: true, resetAt: at(60_000) });
    expect(earliestUsefulReset([latched], { ...options, reentryMinRemainingPercent: 10 })).toBe(
      NOW_MS + 60_000,
    );
    expect(earliestUsefulReset([latched], options)).toBeUndefined();
    const low = reading({ remainingPercent: 4, resetAt: at(60_000) });
    expect(earliestUsefulReset([low], { ...options, exitCutoffPercent: 5 })).toBe(NOW_MS + 60_000);
  });

  it("takes the earliest future reset over exhausted readings and their windows", () => {
    const exhausted: QuotaState = reading({
      status: "exhausted",
      remainingPercent: 0,
      resetAt: at(7_200_000),
      windows: [
        {
          windowId: "5h",
          remainingPercent: 0,
          resetAt: at(1_800_000),
          status: "exhausted",
          source: "header",
          observedAt: at(-1_000),
        },
      ],
    });
    const other = reading({ status: "exhausted", remainingPercent: 0, resetAt: at(3_600_000) });
    expect(earliestUsefulReset([other, undefined, exhausted], options)).toBe(NOW_MS + 1_800_000);
  });

  it("ignores resets already passed, unknown readings and plans with headroom", () => {
    const passed = reading({ status: "exhausted", remainingPercent: 0, resetAt: at(-1_000) });
    const unknown = reading({ status: "unknown", remainingPercent: null, resetAt: at(60_000) });
    const healthy = reading({ remainingPercent: 60, resetAt: at(60_000) });
    expect(earliestUsefulReset([passed, unknown, healthy, undefined], options)).toBeUndefined();
  });
});
