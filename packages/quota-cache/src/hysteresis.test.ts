import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextExhaustionLatch } from "./hysteresis";

const band = { exitCutoffPercent: 2, reentryMinRemainingPercent: 5 };
const ok = (remainingPercent: number | null) => ({ status: "ok" as const, remainingPercent });

describe("nextExhaustionLatch", () => {
  it("H1 latches at or below the exit cutoff and on an exhausted status", () => {
    expect(nextExhaustionLatch(false, ok(2), band, true)).toBe(true);
    expect(
      nextExhaustionLatch(false, { status: "exhausted", remainingPercent: 40 }, band, true),
    ).toBe(true);
    expect(nextExhaustionLatch(false, ok(2.01), band, true)).toBe(false);
  });

  it("H2 clears only on a fresh reading above the re-entry floor", () => {
    expect(nextExhaustionLatch(true, ok(5), band, true)).toBe(true);
    expect(nextExhaustionLatch(true, ok(4), band, true)).toBe(true);
    expect(nextExhaustionLatch(true, ok(5.5), band, false)).toBe(true);
    expect(nextExhaustionLatch(true, ok(null), band, true)).toBe(true);
    expect(nextExhaustionLatch(true, ok(5.5), band, true)).toBe(false);
  });

  it("H1–H2 property: a latched window hovering between the cutoff and the floor stays latched", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (readings) => {
          let latched = true;
          for (const remaining of readings) {
            latched = nextExhaustionLatch(latched, ok(remaining), band, true);
          }
          expect(latched).toBe(true);
        },
      ),
    );
  });

  it("property: after any reading the latch is set iff it must be, or unchanged inside the band", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
        fc.boolean(),
        (previous, remaining, fresh) => {
          const next = nextExhaustionLatch(previous, ok(remaining), band, fresh);
          if (remaining !== null && remaining <= 2) expect(next).toBe(true);
          else if (remaining !== null && remaining > 5 && fresh) expect(next).toBe(false);
          else expect(next).toBe(previous);
        },
      ),
    );
  });
});
