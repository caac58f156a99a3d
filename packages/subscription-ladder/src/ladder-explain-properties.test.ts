import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explainPool } from "./explain-pool";
import { optionsOf, poolArb, worldArb } from "./ladder-property-world";
import { connectionsOf, rungOf } from "./ladder-reference-rules";
import { orderPoolByRung } from "./order-pool";
import { RUNG_ORDER, rungIndex } from "./rung";
import { filterSubscriptionOnlyCandidates } from "./subscription-only";

describe("explainPool agrees with the groupings", () => {
  it("its result and per-connection verdicts match filterSubscriptionOnlyCandidates and orderPoolByRung exactly", () => {
    fc.assert(
      fc.property(
        worldArb,
        poolArb,
        fc.constantFrom("subscription", "thrifty" as const),
        (world, pool, grouping) => {
          const options = optionsOf(world);
          const out =
            grouping === "subscription"
              ? filterSubscriptionOnlyCandidates(pool, options)
              : orderPoolByRung(pool, options);
          const explanation = explainPool(pool, options, grouping);
          expect(JSON.parse(JSON.stringify(explanation))).toBeTruthy();
          expect(explanation.result).toHaveLength(out.length);
          explanation.result.forEach((target, i) => {
            const emitted = out[i]!;
            expect(target.provider).toBe(emitted.provider);
            expect(target.model).toBe(emitted.model);
            expect(target.connectionId).toBe(emitted.connectionId);
            expect(target.allowedConnectionIds).toEqual(emitted.allowedConnectionIds ?? null);
            for (const id of connectionsOf(emitted))
              expect(RUNG_ORDER.indexOf(target.rung)).toBe(rungIndex(rungOf(world, emitted, id)));
          });
          explanation.candidates.forEach((explained, position) => {
            const emittedIds = new Set(
              explanation.result
                .filter((t) => t.candidatePosition === position)
                .flatMap((t) =>
                  connectionsOf({
                    ...pool[position]!,
                    allowedConnectionIds: t.allowedConnectionIds ?? undefined,
                  }),
                ),
            );
            expect(explained.connections.map((c) => c.connectionId)).toEqual(
              connectionsOf(pool[position]!),
            );
            for (const connection of explained.connections) {
              expect(connection.verdict === "in").toBe(emittedIds.has(connection.connectionId));
              expect(connection.rung).toBe(rungOf(world, pool[position]!, connection.connectionId));
            }
            expect(explained.verdict === "in").toBe(emittedIds.size > 0);
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});
