import fc from "fast-check";
import { expect, it } from "vitest";
import { createSpendLedger, type Reservation } from "../src/index";
import { minuteOf } from "../src/spend-minutes";
import {
  type ContractSetup,
  dayStartMs,
  isReservation,
  minuteMs,
  reserveArgs,
  usage,
} from "./store-contract-harness";

/**
 * The contract's property: reservations alone never commit more than the budget, whatever the
 * steps, prunes of the history among them (a prune changes no admission and no total).
 */
export function propertyContract(setup: ContractSetup): void {
  it("property: reservations alone never commit more than the budget, and a prune changes neither admissions nor totals", async () => {
    const { store } = await setup();
    let run = 0;
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("reserve" as const),
        // Round amounts make exact-boundary admissions common; arbitrary ones cover the rest.
        micro: fc.oneof(
          fc.integer({ min: 0, max: 400_000 }),
          fc.constantFrom(0, 1, 100_000, 250_000, 333_333, 500_000),
        ),
      }),
      fc.record({
        kind: fc.constant("settle" as const),
        pick: fc.nat(),
        ratio: fc.double({ min: 0, max: 1.5, noNaN: true }),
      }),
      fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
      fc.record({
        kind: fc.constant("advance" as const),
        ms: fc.integer({ min: 0, max: 6 * minuteMs }),
      }),
      fc.record({
        kind: fc.constant("prune" as const),
        backMs: fc.integer({ min: 0, max: 60 * minuteMs }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), fc.constantFrom(1_000_000, 999_999)),
        fc.array(step, { maxLength: 30 }),
        async (budgetMicro, steps) => {
          run += 1;
          const rung = `prop-${run}`;
          let nowMs = dayStartMs;
          const propertyLedger = createSpendLedger({
            store,
            budgetsUsd: { [rung]: budgetMicro / 1e6 },
            now: () => nowMs,
            reservationTimeoutMs: 10 * minuteMs,
          });
          const live: Array<{ reservation: Reservation; expiresAtMs: number }> = [];
          const finished: Reservation[] = [];
          // When each reservation was made; a prune may forget the finished ones made before
          // its cutoff's minute (a repeated settle of those would book again, as documented).
          const madeAt = new Map<Reservation, number>();
          let forgetBeforeMs = Number.NEGATIVE_INFINITY;
          let modelSpent = 0;
          let excess = 0;
          const modelReserved = () =>
            live
              .filter((entry) => entry.expiresAtMs > nowMs)
              .reduce((sum, entry) => sum + entry.reservation.amountMicroUsd, 0);
          for (const action of steps) {
            if (action.kind === "advance") {
              nowMs += action.ms;
            } else if (action.kind === "prune") {
              const cutoffMs = minuteOf(nowMs - action.backMs);
              const kept = () => propertyLedger.records({ rung, sinceMs: cutoffMs });
              const before = await kept();
              await store.prune?.(nowMs - action.backMs);
              expect(await kept()).toEqual(before);
              forgetBeforeMs = Math.max(forgetBeforeMs, cutoffMs);
            } else if (action.kind === "reserve") {
              const predicted = modelSpent + modelReserved() + action.micro <= budgetMicro;
              const result = await propertyLedger.reserve({
                ...reserveArgs,
                rung,
                maxCostUsd: action.micro / 1e6,
              });
              expect(isReservation(result)).toBe(predicted);
              if (isReservation(result)) {
                live.push({ reservation: result, expiresAtMs: result.expiresAtMs });
                madeAt.set(result, nowMs);
              }
            } else {
              const remembered = finished.filter((done) => madeAt.get(done)! >= forgetBeforeMs);
              const all = [...live.map((entry) => entry.reservation), ...remembered];
              if (all.length === 0) continue;
              const reservation = all[action.pick % all.length]!;
              const index = live.findIndex((entry) => entry.reservation === reservation);
              const held = index >= 0 && live[index]!.expiresAtMs > nowMs;
              if (action.kind === "settle") {
                const actual = Math.floor(reservation.amountMicroUsd * action.ratio);
                const result = await propertyLedger.settle(reservation, actual / 1e6, usage);
                expect(result.booked).toBe(index >= 0);
                if (index >= 0) {
                  modelSpent += actual;
                  excess += Math.max(0, actual - (held ? reservation.amountMicroUsd : 0));
                }
              } else {
                const result = await propertyLedger.release(reservation);
                expect(result.released).toBe(held);
              }
              if (index >= 0) {
                live.splice(index, 1);
                finished.push(reservation);
              }
            }
            expect(Math.round(propertyLedger.spentUsd(rung) * 1e6)).toBe(modelSpent);
            expect(modelSpent + modelReserved()).toBeLessThanOrEqual(budgetMicro + excess);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
}
