import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LadderCandidate } from "./ladder-options";
import { optionsOf, poolArb, RUNS, worldArb } from "./ladder-property-world";
import { connectionsOf, rungOf, thriftyUsable } from "./ladder-reference-rules";
import { orderPoolByRung } from "./order-pool";
import { rungIndex } from "./rung";

describe("auto/thrifty properties", () => {
  it("THR2 THR3 THR4 sorted by rung, input order kept within a rung, one rung per candidate, nothing exhausted, nothing invented", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const out = orderPoolByRung(pool, optionsOf(world));
        const expected: { rung: number; candidate: LadderCandidate }[] = [];
        for (const candidate of pool) {
          const byRung = new Map<number, (string | null)[]>();
          for (const id of connectionsOf(candidate)) {
            if (!thriftyUsable(world, candidate, id)) continue;
            const rung = rungIndex(rungOf(world, candidate, id));
            byRung.set(rung, [...(byRung.get(rung) ?? []), id]);
          }
          const whole =
            byRung.size === 1 &&
            [...byRung.values()][0]!.length === connectionsOf(candidate).length;
          for (const [rung, ids] of byRung) {
            expected.push({
              rung,
              candidate: whole
                ? candidate
                : { ...candidate, allowedConnectionIds: ids as string[] },
            });
          }
        }
        const sorted = expected
          .map((e, i) => ({ ...e, i }))
          .sort((a, b) => a.rung - b.rung || a.i - b.i);
        expect(out).toEqual(sorted.map((e) => e.candidate));

        let previousRung = 0;
        for (const emitted of out) {
          const rungs = new Set(connectionsOf(emitted).map((id) => rungOf(world, emitted, id)));
          expect(rungs.size).toBe(1);
          const rung = rungIndex([...rungs][0]!);
          expect(rung).toBeGreaterThanOrEqual(previousRung);
          previousRung = rung;
          for (const id of connectionsOf(emitted))
            expect(thriftyUsable(world, emitted, id)).toBe(true);
          const inputIds = new Set(pool.flatMap(connectionsOf));
          for (const id of connectionsOf(emitted)) expect(inputIds.has(id)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("THR5 the thrifty order is a fixed point: ordering the output again returns it unchanged", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const options = optionsOf(world);
        const out = orderPoolByRung(pool, options);
        expect(orderPoolByRung(out, options)).toBe(out);
      }),
      RUNS,
    );
  });
});
