import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUDGET_WINDOWS, createWindowKeyer, windowEndBoundMs, windowKey } from "./budget-window";

const at = (iso: string) => Date.parse(iso);

describe("windowKey", () => {
  it("names UTC days, Monday-start weeks and months by default", () => {
    const sunday = at("2026-11-29T23:59:59.999Z");
    const monday = at("2026-11-30T00:00:00.000Z");
    expect(windowKey("day", sunday)).toBe("day:2026-11-29");
    expect(windowKey("day", monday)).toBe("day:2026-11-30");
    expect(windowKey("week", sunday)).toBe("week:2026-11-23");
    expect(windowKey("week", monday)).toBe("week:2026-11-30");
    expect(windowKey("week", at("2026-12-06T12:00:00Z"))).toBe("week:2026-11-30");
    expect(windowKey("month", monday)).toBe("month:2026-11");
    expect(windowKey("month", at("2026-12-01T00:00:00Z"))).toBe("month:2026-12");
  });

  it("weeks cross month and year ends", () => {
    expect(windowKey("week", at("2027-01-01T10:00:00Z"))).toBe("week:2026-12-28");
    expect(windowKey("week", at("2024-03-03T10:00:00Z"))).toBe("week:2024-02-26");
  });

  it("uses the local date of the configured time zone", () => {
    const instant = at("2026-11-30T03:00:00Z");
    expect(windowKey("day", instant, "America/Los_Angeles")).toBe("day:2026-11-29");
    expect(windowKey("day", instant, "Asia/Tokyo")).toBe("day:2026-11-30");
    expect(windowKey("week", instant, "America/Los_Angeles")).toBe("week:2026-11-23");
    expect(windowKey("month", at("2026-11-30T20:00:00Z"), "Pacific/Auckland")).toBe(
      "month:2026-12",
    );
    expect(windowKey("day", at("2026-11-30T18:14:59Z"), "Asia/Kathmandu")).toBe("day:2026-11-30");
    expect(windowKey("day", at("2026-11-30T18:15:00Z"), "Asia/Kathmandu")).toBe("day:2026-12-01");
  });

  it("moves the day edge with daylight saving time", () => {
    // Europe/Berlin: UTC+1 in winter, UTC+2 in summer (change on 2026-03-29 and 2026-10-25).
    expect(windowKey("day", at("2026-03-28T22:59:59Z"), "Europe/Berlin")).toBe("day:2026-03-28");
    expect(windowKey("day", at("2026-03-28T23:00:00Z"), "Europe/Berlin")).toBe("day:2026-03-29");
    // The 23-hour day ends at 22:00 UTC, local midnight in summer time.
    expect(windowKey("day", at("2026-03-29T21:59:59Z"), "Europe/Berlin")).toBe("day:2026-03-29");
    expect(windowKey("day", at("2026-03-29T22:00:00Z"), "Europe/Berlin")).toBe("day:2026-03-30");
    // The 25-hour day in October.
    expect(windowKey("day", at("2026-10-24T22:00:00Z"), "Europe/Berlin")).toBe("day:2026-10-25");
    expect(windowKey("day", at("2026-10-25T22:59:59Z"), "Europe/Berlin")).toBe("day:2026-10-25");
    expect(windowKey("day", at("2026-10-25T23:00:00Z"), "Europe/Berlin")).toBe("day:2026-10-26");
  });

  it("a keyer gives the same keys as windowKey hour by hour across a DST year", () => {
    const keyer = createWindowKeyer("week", "America/New_York");
    const start = at("2026-01-01T00:00:00Z");
    for (let ms = start; ms < start + 366 * 86_400_000; ms += 7 * 60_000 * 13) {
      expect(keyer(ms)).toBe(windowKey("week", ms, "America/New_York"));
    }
  });

  it("rejects an unknown window or time zone with the allowed values", () => {
    expect(() => windowKey("hour" as "day", 0)).toThrow(
      expect.objectContaining({
        code: "invalid_argument",
        path: "window",
        allowed: '"day" | "week" | "month"',
      }),
    );
    expect(() => windowKey("day", 0, "Mars/Olympus")).toThrow(
      expect.objectContaining({ code: "invalid_argument", path: "timeZone" }),
    );
  });
});

describe("windowEndBoundMs", () => {
  const zones = ["UTC", "Pacific/Kiritimati", "Etc/GMT+12", "Europe/Paris", "America/St_Johns"];

  it("is an instant by which the window has ended, in every time zone", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...BUDGET_WINDOWS),
        fc.constantFrom(...zones),
        fc.constantFrom(...zones),
        (atMs, window, keyZone, otherZone) => {
          const key = windowKey(window, atMs, keyZone);
          const bound = windowEndBoundMs(key);
          expect(bound).toBeGreaterThan(atMs);
          // At the bound a later window has begun, whichever zone reads the key; keys of one
          // window length sort in time.
          expect(windowKey(window, bound, keyZone) > key).toBe(true);
          expect(windowKey(window, bound, otherZone) > key).toBe(true);
        },
      ),
    );
  });

  it("never takes a key of another shape for ended", () => {
    for (const key of ["", "day:2026-11", "month:2026-11-30", "year:2026", "day:x"]) {
      expect(windowEndBoundMs(key)).toBe(Number.POSITIVE_INFINITY);
    }
    expect(windowEndBoundMs("month:2026-12")).toBe(Date.UTC(2027, 0, 2));
    expect(windowEndBoundMs("week:2026-11-30")).toBe(Date.UTC(2026, 11, 8));
  });
});
