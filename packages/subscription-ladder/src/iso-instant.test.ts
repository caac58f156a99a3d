import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseIsoInstantMs } from "./iso-instant";

describe("parseIsoInstantMs", () => {
  it("reads canonical instants exactly as Date.parse does", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0000-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59.999Z"),
          noInvalidDate: true,
        }),
        (date) => {
          const iso = date.toISOString();
          expect(parseIsoInstantMs(iso)).toBe(Date.parse(iso));
          const seconds = `${iso.slice(0, 19)}Z`;
          expect(parseIsoInstantMs(seconds)).toBe(Date.parse(seconds));
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it("agrees with Date.parse on near-miss and non-canonical strings", () => {
    const field = (max: number, width: number) =>
      fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, "0"));
    const nearMiss = fc
      .tuple(
        field(9999, 4),
        field(19, 2),
        field(39, 2),
        field(29, 2),
        field(69, 2),
        field(69, 2),
        field(999, 3),
      )
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    fc.assert(
      fc.property(fc.oneof(nearMiss, fc.string({ maxLength: 26 })), (value) => {
        expect(Object.is(parseIsoInstantMs(value), Date.parse(value))).toBe(true);
      }),
      { numRuns: 10_000 },
    );
    for (const value of [
      "2026-02-29T00:00:00.000Z",
      "2024-02-29T00:00:00.000Z",
      "2026-02-30T00:00:00.000Z",
      "2026-03-01T24:00:00.000Z",
      "2026-03-01T12:00:00+02:00",
      "2026-03-01",
      "2026-03-01T12:00:00.000",
      "+002026-03-01T12:00:00.000Z",
      "garbage",
      "",
    ]) {
      expect(Object.is(parseIsoInstantMs(value), Date.parse(value)), value).toBe(true);
    }
  });
});
