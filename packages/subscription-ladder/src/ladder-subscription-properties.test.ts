import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explainPool } from "./explain-pool";
import type { LadderCandidate } from "./ladder-options";
import { optionsOf, poolArb, RUNS, worldArb } from "./ladder-property-world";
import {
  connectionsOf,
  couldBill,
  isSubsequence,
  referenceUsable,
  strictSafe,
} from "./ladder-reference-rules";
import { NOW_MS } from "./ladder-test-support";
import { findProbeableConnections } from "./probeable";
import { filterSubscriptionOnlyCandidates } from "./subscription-only";

describe("auto/subscription properties", () => {
  it("SUB2 SUB3 SUB4 every survivor is a verified hard-stop plan connection, allowlists are ordered subsets, none empty", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const out = filterSubscriptionOnlyCandidates(pool, optionsOf(world));
        const expected = pool.flatMap(
          (candidate, source): { source: number; candidate: LadderCandidate }[] => {
            const kept = connectionsOf(candidate).filter((id) => strictSafe(world, candidate, id));
            if (kept.length === 0) return [];
            if (candidate.connectionId !== null || candidate.allowedConnectionIds === undefined) {
              return [{ source, candidate }];
            }
            return [
              { source, candidate: { ...candidate, allowedConnectionIds: kept as string[] } },
            ];
          },
        );
        expect(out).toEqual(expected.map((e) => e.candidate));
        out.forEach((survivor, i) => {
          const input = pool[expected[i]!.source]!;
          for (const id of connectionsOf(survivor))
            expect(strictSafe(world, survivor, id)).toBe(true);
          if (survivor.connectionId === null && input.allowedConnectionIds) {
            expect(survivor.allowedConnectionIds!.length).toBeGreaterThan(0);
            expect(isSubsequence(survivor.allowedConnectionIds!, input.allowedConnectionIds)).toBe(
              true,
            );
          }
        });
      }),
      RUNS,
    );
  });

  it("E3 SUB2 no connection with fresh evidence on ever survives, whatever the catalog says", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const out = filterSubscriptionOnlyCandidates(pool, optionsOf(world));
        for (const survivor of out) {
          for (const id of connectionsOf(survivor)) {
            const fresh = (id === null ? [] : world.evidence[id]!).filter(
              (o) => NOW_MS - Date.parse(o.observedAt) <= 180_000,
            );
            expect(fresh.some((o) => o.evidence === "on")).toBe(false);
            expect(couldBill(world, survivor, id)).toBe(false);
          }
        }
      }),
      RUNS,
    );
  });

  it("P1 P5 probes go only to hard-stop plans without a usable or exhausted reading, never to a survivor", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const options = optionsOf(world);
        const probeable = findProbeableConnections(pool, options);
        for (const { candidate, position, connectionId } of probeable) {
          expect(pool[position]).toBe(candidate);
          expect(connectionsOf(candidate)).toContain(connectionId);
          expect(couldBill(world, candidate, connectionId)).toBe(false);
          const state = connectionId === null ? undefined : world.states[connectionId];
          expect(referenceUsable(state, false)).toBe(false);
          expect(referenceUsable(state, true)).toBe(true);
        }
        const explanation = explainPool(pool, options, "subscription");
        expect(explanation.probeable).toEqual(
          probeable.map((p) => ({ candidatePosition: p.position, connectionId: p.connectionId })),
        );
      }),
      RUNS,
    );
  });

  it("SUB5 unchanged input gives the same array reference, and the filter is idempotent", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const options = optionsOf(world);
        const out = filterSubscriptionOnlyCandidates(pool, options);
        const unchanged = out.length === pool.length && out.every((c, i) => c === pool[i]);
        expect(out === pool).toBe(unchanged);
        expect(filterSubscriptionOnlyCandidates(out, options)).toBe(out);
      }),
      RUNS,
    );
  });
});
