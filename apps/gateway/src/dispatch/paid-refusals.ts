import { type BudgetWindow, createWindowKeyer, SpendLedgerError } from "@planfirst/spend-ledger";
import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { ClientKeyBudget } from "../config/client-key-policy";
import type { GatewayLedger } from "../deps";
import { type AttemptRecord, GatewayError } from "../errors";
import type { DispatchTarget } from "../routing/build-pool";
import { LOCAL_CAPACITY } from "./connection-slots";
import { type Admission, admit } from "./reservation";
import { retryAfterSeconds } from "./retry-after";
import type { ClientRequest } from "./types";
import type { UpstreamBody } from "./upstream-body";

/** The attempt outcome of a paid target skipped because the spend store could not answer. */
export const STORE_DOWN = "spend_store_unavailable" as const;

/** Outcomes that skipped a target without it failing: neutral when deciding why a request ended. */
const SKIPPED = new Set(["cooling_down", LOCAL_CAPACITY]);

/**
 * True for a reserve that failed because the spend store cannot answer (Redis unreachable, or
 * the store failing): the paid target is skipped, since admitting it uncounted could overspend.
 */
function isSpendStoreDown(error: unknown): boolean {
  return (
    SpendLedgerError.isInstance(error) &&
    (error.code === "store_unavailable" || error.code === "store_failure")
  );
}

/**
 * `admit`, or {@link STORE_DOWN} when the spend store cannot answer: the caller skips the paid
 * target (recording why) so plan and keyless traffic keep flowing through an outage. Any other
 * failure is rethrown.
 */
export async function admitOrSkip(
  ledger: Pick<GatewayLedger, "reserve" | "release" | "budgetUsd" | "isScopeExhausted">,
  target: DispatchTarget,
  request: ClientRequest,
  sentBody: () => UpstreamBody | undefined,
): Promise<Admission | typeof STORE_DOWN> {
  try {
    return await admit(ledger, target, request, sentBody);
  } catch (error) {
    if (isSpendStoreDown(error)) return STORE_DOWN;
    throw error;
  }
}

/** Seconds a client is told to wait before retrying while the spend store is unreachable. */
const SPEND_STORE_RETRY_AFTER_SEC = 1;

/**
 * `503 spend_store_unavailable` with a short Retry-After: a paid request is refused at once
 * while the spend store cannot answer, since admitting it uncounted could overspend a budget.
 */
export function spendStoreUnavailable(cause: unknown = undefined): GatewayError {
  return new GatewayError({
    code: "spend_store_unavailable",
    message: "the spend store is unreachable, so no paid request can be admitted; retry shortly",
    cause,
    retryAfterSec: SPEND_STORE_RETRY_AFTER_SEC,
  });
}

/** Outcomes of paid targets a budget kept out (the rung's or the client key's). */
const BUDGET_REFUSALS = new Set(["budget_refused", "key_budget_refused", "unpriced_on_key_budget"]);

/**
 * True when the client key's budget kept out some paid target and every other attempt was a
 * budget refusal or only skipped: nothing but paid targets could have served the request, and
 * the key may not spend on them (`429 key_budget_exhausted`).
 */
export function keyBudgetBarred(attempts: readonly AttemptRecord[]): boolean {
  let barred = false;
  for (const attempt of attempts) {
    if (attempt.outcome === "key_budget_refused") barred = true;
    else if (!BUDGET_REFUSALS.has(attempt.outcome) && !SKIPPED.has(attempt.outcome)) return false;
  }
  return barred;
}

/** True when some attempt ended with `outcome` and every other one was only skipped. */
export function onlyOutcome(attempts: readonly AttemptRecord[], outcome: string): boolean {
  let seen = false;
  for (const attempt of attempts) {
    if (attempt.outcome === outcome) seen = true;
    else if (!SKIPPED.has(attempt.outcome)) return false;
  }
  return seen;
}

/** True when some paid rung has a positive budget its spend and reservations have reached. */
export function anyBudgetSpent(ledger: Pick<GatewayLedger, "budgetUsd" | "rungSpendUsd">): boolean {
  for (const rung of PAID_RUNGS) {
    const budget = ledger.budgetUsd(rung);
    if (budget === undefined || budget <= 0) continue;
    const spent = ledger.rungSpendUsd(rung);
    if (spent !== null && spent >= budget) return true;
  }
  return false;
}

/** The settings the budget window follows (`subscriptionLadder.budgetWindow` / `budgetTimeZone`). */
interface BudgetWindowSetting {
  budgetWindow: BudgetWindow;
  budgetTimeZone: string;
}

const QUARTER_HOUR_MS = 15 * 60 * 1000;
/** Longer than any window (a month), so the search always finds the next one. */
const SEARCH_SPAN_MS = 32 * 24 * 60 * 60 * 1000;

/**
 * Epoch ms at which the budget window containing `nowMs` ends (the next window's first quarter
 * hour: window edges are local midnights, which lie on quarter hours in every time zone).
 * A binary search over quarter hours, about 12 key computations.
 */
export function nextBudgetWindowMs(setting: BudgetWindowSetting, nowMs: number): number {
  const key = createWindowKeyer(setting.budgetWindow, setting.budgetTimeZone);
  const current = key(nowMs);
  let low = Math.floor(nowMs / QUARTER_HOUR_MS); // slot still in the current window
  let high = Math.floor((nowMs + SEARCH_SPAN_MS) / QUARTER_HOUR_MS); // slot in a later one
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (key(mid * QUARTER_HOUR_MS) === current) low = mid;
    else high = mid;
  }
  return high * QUARTER_HOUR_MS;
}

/** Epoch ms at which the budget window containing `nowMs` began: its first quarter hour. */
export function budgetWindowStartMs(setting: BudgetWindowSetting, nowMs: number): number {
  const key = createWindowKeyer(setting.budgetWindow, setting.budgetTimeZone);
  const current = key(nowMs);
  let low = Math.floor((nowMs - SEARCH_SPAN_MS) / QUARTER_HOUR_MS); // slot in an earlier one
  let high = Math.floor(nowMs / QUARTER_HOUR_MS); // slot in the current window
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (key(mid * QUARTER_HOUR_MS) === current) high = mid;
    else low = mid;
  }
  return high * QUARTER_HOUR_MS;
}

/**
 * `429 budget_exhausted`: the paid rungs' budgets cannot admit this request and nothing else
 * could serve it; `Retry-After` is the time to the next budget window, when budgets start over.
 */
export function budgetExhaustedError(
  setting: BudgetWindowSetting,
  nowMs: number,
  attempts?: readonly AttemptRecord[],
): GatewayError {
  const returnAtMs = nextBudgetWindowMs(setting, nowMs);
  const retryAfterSec = retryAfterSeconds(returnAtMs, nowMs);
  const details: Record<string, unknown> = {
    resets_at: new Date(returnAtMs).toISOString(),
    retry_after_seconds: retryAfterSec,
  };
  if (attempts && attempts.length > 0) details.attempts = attempts;
  return new GatewayError({
    code: "budget_exhausted",
    message: `the paid rungs' ${setting.budgetWindow} budget is spent and no other rung can serve this request; budgets start over at ${details.resets_at}`,
    details,
    retryAfterSec,
  });
}

/**
 * `429 key_budget_exhausted` (rule B7): the client key's own budget cannot admit this request and
 * nothing that costs no money could serve it; `Retry-After` is the time to the end of the key's budget
 * window. The message names the key by its id, never the key.
 */
export function keyBudgetExhaustedError(
  keyId: string,
  budget: ClientKeyBudget,
  timeZone: string,
  nowMs: number,
  attempts?: readonly AttemptRecord[],
): GatewayError {
  const returnAtMs = nextBudgetWindowMs(
    { budgetWindow: budget.window, budgetTimeZone: timeZone },
    nowMs,
  );
  const retryAfterSec = retryAfterSeconds(returnAtMs, nowMs);
  const resetsAt = new Date(returnAtMs).toISOString();
  const details: Record<string, unknown> = {
    key: keyId,
    budget_usd: budget.budgetUsd,
    budget_window: budget.window,
    resets_at: resetsAt,
    retry_after_seconds: retryAfterSec,
  };
  if (attempts && attempts.length > 0) details.attempts = attempts;
  const why =
    budget.budgetUsd > 0
      ? `has spent its ${budget.window} budget of $${budget.budgetUsd}`
      : "has no budget for paid rungs (budgetUsd 0)";
  return new GatewayError({
    code: "key_budget_exhausted",
    message: `client key "${keyId}" ${why}, and no plan, keyless or free rung can serve this request; the key's budget starts over at ${resetsAt}`,
    details,
    retryAfterSec,
  });
}
