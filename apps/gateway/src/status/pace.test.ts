import { describe, expect, it } from "vitest";
import { formatSpan, windowPace } from "./pace";

const T = Date.parse("2026-11-30T10:00:00Z");
const min = 60_000;

describe("windowPace", () => {
  it("projects the exhaustion from the last hour's burn and says how long before the reset it comes", () => {
    // 60 % → 40 % in the last hour = 20 %/h; 40 % left lasts 2 h; the reset is in 2 h 40 min.
    const pace = windowPace(
      "5h",
      [
        { atMs: T - 60 * min + 1, remainingPercent: 60 },
        { atMs: T - 30 * min, remainingPercent: 50 },
      ],
      { remainingPercent: 40, resetAt: new Date(T + 160 * min).toISOString() },
      T,
    );
    expect(pace.burnPercentPerHour).toBeCloseTo(20, 3);
    expect(Date.parse(pace.exhaustsAt!)).toBeCloseTo(T + 120 * min, -3);
    expect(pace.runsOutBeforeResetMs).toBeCloseTo(40 * min, -3);
    expect(pace.summary).toBe(
      "at this pace (20 %/h) the 5h window runs out 40 min before it resets",
    );
  });

  it("says the window lasts when the reset comes first", () => {
    const pace = windowPace(
      "5h",
      [{ atMs: T - 60 * min + 1, remainingPercent: 50 }],
      { remainingPercent: 45, resetAt: new Date(T + 30 * min).toISOString() },
      T,
    );
    expect(pace.runsOutBeforeResetMs).toBeLessThan(0);
    expect(pace.summary).toBe("at this pace (5.0 %/h) the 5h window lasts until it resets");
  });

  it("ignores readings older than an hour and readings before a reset (a rise in remaining)", () => {
    const pace = windowPace(
      "5h",
      [
        { atMs: T - 3 * 60 * min, remainingPercent: 100 },
        { atMs: T - 50 * min, remainingPercent: 2 },
        { atMs: T - 40 * min, remainingPercent: 100 },
      ],
      { remainingPercent: 100, resetAt: new Date(T + 5 * 60 * min).toISOString() },
      T,
    );
    expect(pace.burnPercentPerHour).toBe(0);
    expect(pace.exhaustsAt).toBeNull();
    expect(pace.summary).toBe("the 5h window is not being used");
  });

  it("reports a used-up window and an unknown one plainly", () => {
    expect(windowPace("7d", [], { remainingPercent: 0, resetAt: null }, T).summary).toBe(
      "the 7d window is used up",
    );
    expect(windowPace("7d", [], { remainingPercent: null, resetAt: null }, T).summary).toBe(
      "no reading of the 7d window",
    );
  });

  it("formats spans the way people say them", () => {
    expect(formatSpan(30_000)).toBe("under a minute");
    expect(formatSpan(40 * min)).toBe("40 min");
    expect(formatSpan(125 * min)).toBe("2 h 5 min");
    expect(formatSpan(76 * 60 * min)).toBe("3 d 4 h");
  });
});
