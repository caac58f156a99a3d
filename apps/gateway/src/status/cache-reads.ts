import { MINUTE, minuteOf, type SpendSummary } from "@planfirst/spend-ledger";
import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { StatusSource as AppContext } from "./status-source";

const HOUR_MS = 60 * MINUTE;

/**
 * How much of a paid rung's input was read from the provider's prompt cache, over the spend
 * records of the last hour (token counts as the upstreams reported them).
 */
export interface StatusCacheReads {
  /** Every input token booked, cached reads and cache writes included. */
  inputTokens: number;
  /** Input tokens read from the cache (billed at the cache-read price). */
  cachedInputTokens: number;
  /** Input tokens written to the cache. */
  cacheWriteTokens: number;
  /** `cachedInputTokens` as a percentage of `inputTokens`; null when no input was booked. */
  readPercent: number | null;
}

/**
 * Per paid rung, how much of the input booked in the spend records of the last hour (from the
 * start of the minute an hour before `nowMs`) was read from the prompt cache (every paid rung
 * listed, zero when it served nothing); of one client key's records alone when `clientKeyId`
 * is given. The spend store sums the records where it keeps them (`SpendLedger.summary`), whole
 * minutes from its minute sums: starting the hour on a minute spares every look of the status
 * page a read of that first minute's records (a busy gateway's thousands). Null when the spend
 * store cannot answer: the page says so rather than failing.
 */
export async function cacheReadsLastHour(
  app: Pick<AppContext, "deps">,
  nowMs: number,
  clientKeyId?: string,
): Promise<Record<string, StatusCacheReads> | null> {
  let byRung: SpendSummary["byRung"];
  try {
    const sinceMs = minuteOf(nowMs - HOUR_MS);
    const query = clientKeyId === undefined ? { sinceMs } : { sinceMs, clientKeyId };
    byRung = (await app.deps.ledger.summary(query)).byRung;
  } catch {
    return null;
  }
  const reads: Record<string, StatusCacheReads> = {};
  for (const rung of PAID_RUNGS) {
    const totals = Object.hasOwn(byRung, rung) ? byRung[rung] : undefined;
    const inputTokens = totals?.inputTokens ?? 0;
    const cachedInputTokens = totals?.cachedInputTokens ?? 0;
    reads[rung] = {
      inputTokens,
      cachedInputTokens,
      cacheWriteTokens: totals?.cacheWriteTokens ?? 0,
      readPercent: inputTokens > 0 ? (cachedInputTokens / inputTokens) * 100 : null,
    };
  }
  return reads;
}
