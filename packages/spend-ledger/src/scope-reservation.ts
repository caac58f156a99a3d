import { type BudgetScope, type ScopeHold, scopeHoldId } from "./budget-scope";
import type { BudgetWindow } from "./budget-window";
import { invalidArgument, requireNonEmptyString } from "./errors";
import { type MicroUsd, usdAmount } from "./money";
import { budgetRefusal, type Reservation, type ReservationRefusal } from "./reservation";
import type { SpendRecord } from "./spend-record";
import type { SpendStore, StoreReleaseResult, StoreSettleResult } from "./spend-store";

/** Gives one scope's hold back in the store. */
export function releaseHold(
  store: SpendStore,
  hold: ScopeHold,
  nowMs: number,
): Promise<StoreReleaseResult> {
  return store.release({
    reservationId: hold.id,
    rung: hold.scope,
    windowKey: hold.windowKey,
    nowMs,
  });
}

/** Gives back holds taken before a refusal; one that cannot be given back expires. */
function giveBack(store: SpendStore, holds: readonly ScopeHold[], nowMs: number): Promise<unknown> {
  return Promise.all(holds.map((hold) => releaseHold(store, hold, nowMs).catch(() => undefined)));
}

/**
 * Books a settled request's cost against its scopes too, in the same turn as the rung's settle
 * (one batch where the store batches). Only the rung's settle keeps the record, so a request
 * is one record however many budgets it counted against. Journaled when any part was.
 */
export async function settleScopes(
  store: SpendStore,
  rungSettle: Promise<StoreSettleResult>,
  holds: readonly ScopeHold[],
  nowMs: number,
  record: SpendRecord,
): Promise<StoreSettleResult> {
  const [result, ...scoped] = await Promise.all([
    rungSettle,
    ...holds.map((hold) =>
      store.settle({
        reservationId: hold.id,
        rung: hold.scope,
        windowKey: hold.windowKey,
        nowMs,
        record,
        keepRecord: false,
      }),
    ),
  ]);
  if (scoped.some((part) => part.journaled)) return { ...result, journaled: true };
  return result;
}

/**
 * The reservation of a request that names budget scopes: each scope in the request's order,
 * then the rung, each admitted atomically in its own window. A refusal (or a store failure)
 * gives back what was held before it, so nothing is held after a refused request; two
 * requests racing for the same budgets may both be refused where one would have fitted, never
 * both admitted past one. Scopes come first, so a key over its own budget never holds any of
 * the rung's, which other keys share. `keyerOf` gives the window keyer of a scope's window.
 */
export async function reserveInScopes(
  store: SpendStore,
  reservation: Reservation,
  scopes: readonly BudgetScope[],
  rungBudgetMicro: MicroUsd | undefined,
  keyerOf: (scopeWindow: BudgetWindow | undefined) => (atMs: number) => string,
): Promise<Reservation | ReservationRefusal> {
  const { rung, reservedAtMs } = reservation;
  const steps = scopes.map((scope, index) => {
    const name = requireNonEmptyString(`request.scopes[${index}].scope`, scope?.scope);
    if (name === rung) {
      invalidArgument(`request.scopes[${index}].scope`, "a name other than the rung's", name);
    }
    const usd = scope.budgetUsd;
    if (typeof usd !== "number" || Number.isNaN(usd)) {
      invalidArgument(`request.scopes[${index}].budgetUsd`, "a number of USD", usd);
    }
    const budgetMicro = usd <= 0 ? 0 : usdAmount(`request.scopes[${index}].budgetUsd`, usd, "down");
    const hold: ScopeHold = {
      scope: name,
      windowKey: keyerOf(scope.window)(reservedAtMs),
      id: scopeHoldId(reservation.id, index),
    };
    return { hold, budgetMicro };
  });
  for (const { hold, budgetMicro } of steps) {
    if (budgetMicro === 0) {
      const state = store.totals(hold.scope, hold.windowKey, reservedAtMs);
      return budgetRefusal("budget_disabled", 0, state, hold.scope);
    }
  }
  if (rungBudgetMicro === 0) {
    return budgetRefusal(
      "budget_disabled",
      rungBudgetMicro,
      store.totals(rung, reservation.windowKey, reservedAtMs),
    );
  }
  const held: ScopeHold[] = [];
  try {
    for (const { hold, budgetMicro } of steps) {
      const result = await store.reserve({
        reservationId: hold.id,
        rung: hold.scope,
        windowKey: hold.windowKey,
        amountMicroUsd: reservation.amountMicroUsd,
        budgetMicroUsd: budgetMicro,
        nowMs: reservedAtMs,
        expiresAtMs: reservation.expiresAtMs,
      });
      if (!result.admitted) {
        await giveBack(store, held, reservedAtMs);
        return budgetRefusal("budget_exhausted", budgetMicro, result, hold.scope);
      }
      held.push(hold);
    }
    const result = await store.reserve({
      reservationId: reservation.id,
      rung,
      windowKey: reservation.windowKey,
      amountMicroUsd: reservation.amountMicroUsd,
      budgetMicroUsd: rungBudgetMicro ?? null,
      nowMs: reservedAtMs,
      expiresAtMs: reservation.expiresAtMs,
    });
    if (!result.admitted) {
      await giveBack(store, held, reservedAtMs);
      return budgetRefusal("budget_exhausted", rungBudgetMicro ?? 0, result);
    }
  } catch (error) {
    await giveBack(store, held, reservedAtMs);
    throw error;
  }
  reservation.scopes = held;
  return reservation;
}
