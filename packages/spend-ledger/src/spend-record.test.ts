import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recordTime } from "./spend-record";

describe("recordTime", () => {
  it("writes exactly what toISOString writes, in any order of instants", () => {
    const instant = fc.oneof(
      fc.integer({ min: -62_198_755_200_000, max: 253_402_300_799_999 }),
      // Neighbours of second boundaries, where the kept prefix must change.
      fc.integer({ min: -3_000, max: 3_000 }).map((offset) => Date.UTC(2026, 11, 2) + offset),
      fc.double({ min: -1e12, max: 1e13, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 50 }), (instants) => {
        for (const ms of instants) expect(recordTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it("refuses an instant outside the Date range as toISOString does", () => {
    expect(() => recordTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
