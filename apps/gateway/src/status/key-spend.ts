import { microToUsd } from "@planfirst/spend-ledger";
import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import { budgetWindowStartMs } from "../dispatch/paid-refusals";

/**
 * One client key's own settled spend per paid rung in the current budget window (the ladder's),
 * USD, read from the spend records, which carry the key's id: what a client key is shown in
 * place of every key's totals. A record counts in the window its request was reserved in, as
 * the rung totals do; reservations in flight have no record yet and are not counted. Costs one
 * read of the window's records of that key.
 */
export async function keyRungSpendUsd(
  deps: Pick<GatewayDeps, "ledger" | "config" | "now">,
  keyId: string,
): Promise<Record<string, number>> {
  const nowMs = deps.now();
  const windowKey = deps.ledger.currentWindowKey();
  const records = await deps.ledger.records({
    sinceMs: budgetWindowStartMs(deps.config.subscriptionLadder, nowMs),
    clientKeyId: keyId,
  });
  const micro: Record<string, number> = {};
  for (const rung of PAID_RUNGS) micro[rung] = 0;
  for (const record of records) {
    if (record.windowKey !== windowKey) continue;
    micro[record.rung] = (micro[record.rung] ?? 0) + record.costMicroUsd;
  }
  const usd: Record<string, number> = {};
  for (const [rung, amount] of Object.entries(micro)) usd[rung] = microToUsd(amount);
  return usd;
}
