import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { minuteOf, minuteSpans } from "./spend-minutes";
import type { SpendRecordQuery } from "./spend-record";

const inRange = (query: SpendRecordQuery, timeMs: number) =>
  (query.sinceMs === undefined || timeMs >= query.sinceMs) &&
  (query.untilMs === undefined || timeMs < query.untilMs);

describe("minuteSpans", () => {
  it("puts every instant of the range in exactly one part, and the sums' part on whole minutes within their bounds", () => {
    const base = Date.UTC(2026, 11, 4, 10);
    const instant = fc.integer({ min: -300_000, max: 300_000 }).map((offset) => base + offset);
    const minute = fc.integer({ min: -5, max: 5 }).map((count) => base + count * 60_000);
    fc.assert(
      fc.property(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.option(minute, { nil: undefined }),
        fc.option(minute, { nil: undefined }),
        fc.array(instant, { minLength: 1, maxLength: 30 }),
        (sinceMs, untilMs, sumsFromMs, sumsUntilMs, times) => {
          const query: SpendRecordQuery = { sinceMs, untilMs, rung: "cheap" };
          const { minutes, records } = minuteSpans(query, sumsFromMs, sumsUntilMs);
          for (const part of [...records, ...(minutes ? [minutes] : [])]) {
            expect(part.rung).toBe("cheap");
          }
          if (minutes) {
            // Whole minutes only, inside what the sums hold.
            for (const bound of [minutes.sinceMs, minutes.untilMs]) {
              if (bound !== undefined) expect(minuteOf(bound)).toBe(bound);
            }
            if (sumsFromMs !== undefined)
              expect(minutes.sinceMs).toBeGreaterThanOrEqual(sumsFromMs);
            if (sumsUntilMs !== undefined) expect(minutes.untilMs).toBeLessThanOrEqual(sumsUntilMs);
          }
          for (const timeMs of times) {
            const parts = [...records, ...(minutes ? [minutes] : [])].filter((part) =>
              inRange(part, timeMs),
            );
            expect(parts.length, `${timeMs}`).toBe(inRange(query, timeMs) ? 1 : 0);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
