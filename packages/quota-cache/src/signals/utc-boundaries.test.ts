import { describe, expect, it } from "vitest";
import {
  nextPacificMidnightMs,
  nextUtcMidnightMs,
  nextUtcMondayMs,
  nextUtcMonthStartMs,
} from "./utc-boundaries";

const iso = (ms: number) => new Date(ms).toISOString();

describe("utc-boundaries", () => {
  it("next UTC midnight, Monday and month start are strictly after now", () => {
    const wednesday = Date.parse("2026-08-12T15:00:00Z");
    expect(iso(nextUtcMidnightMs(wednesday))).toBe("2026-08-13T00:00:00.000Z");
    expect(iso(nextUtcMondayMs(wednesday))).toBe("2026-08-17T00:00:00.000Z");
    expect(iso(nextUtcMondayMs(Date.parse("2026-08-17T00:00:00Z")))).toBe(
      "2026-08-24T00:00:00.000Z",
    );
    expect(iso(nextUtcMonthStartMs(Date.parse("2026-12-31T23:59:59Z")))).toBe(
      "2027-01-01T00:00:00.000Z",
    );
  });

  it.each([
    ["2026-01-02T12:00:00Z", "2026-01-03T08:00:00.000Z"],
    ["2026-01-03T07:59:59Z", "2026-01-03T08:00:00.000Z"],
    ["2026-07-01T12:00:00Z", "2026-07-02T07:00:00.000Z"],
    // Day DST starts (8 March 2026): midnight that night is already PDT.
    ["2026-03-08T12:00:00Z", "2026-03-09T07:00:00.000Z"],
    // Day before DST starts: midnight is still PST.
    ["2026-03-07T12:00:00Z", "2026-03-08T08:00:00.000Z"],
    // Day DST ends (1 November 2026): the next midnight is PST again.
    ["2026-11-01T12:00:00Z", "2026-11-02T08:00:00.000Z"],
    ["2026-10-31T12:00:00Z", "2026-11-01T07:00:00.000Z"],
  ])("next Pacific midnight after %s is %s", (now, expected) => {
    expect(iso(nextPacificMidnightMs(Date.parse(now)))).toBe(expected);
  });
});
