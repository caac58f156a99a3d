import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import { budgetWindowStartMs } from "../dispatch/paid-refusals";

/**
 * One client key's own settled spend per paid rung in the current budget window (the ladder's),
 * USD, summed from the spend records, which carry the key's id: what a client key is shown in
 * place of every key's totals. A record counts in the window its request was reserved in, as
 * the rung totals do; reservations in flight have no record yet and are not counted. The store
 * sums the window's records of that key where it keeps them (`SpendLedger.summary`).
 */
export async function keyRungSpendUsd(
  deps: Pick<GatewayDeps, "ledger" | "config" | "now">,
  keyId: string,
): Promise<Record<string, number>> {
  const nowMs = deps.now();
  const { byRung } = await deps.ledger.summary({
    sinceMs: budgetWindowStartMs(deps.config.subscriptionLadder, nowMs),
    clientKeyId: keyId,
    windowKey: deps.ledger.currentWindowKey(),
  });
  const usd: Record<string, number> = {};
  for (const rung of PAID_RUNGS) usd[rung] = 0;
  for (const [rung, totals] of Object.entries(byRung)) usd[rung] = totals.costUsd;
  return usd;
}
