import type { Redis } from "ioredis";
import type { RedisKeyLayout } from "./redis-keys";
import { memberPages } from "./redis-record-pages";
import type { RecordGroup, SpendRecordQuery } from "./spend-record";

/**
 * Reading the Redis store's minute sums (written by the batch script, see redis-scripts.ts):
 * the sums of a range of whole minutes, and where the sums begin.
 */

/** What a minute sums field names after its minute: JSON [windowKey, rung, connection, model, key]. */
type FieldSeries = [string, string, string, string, string | null];

/**
 * The first minute whose sums are complete (records before it may have none: a store of an
 * earlier version booked them); null when no record was ever booked with sums.
 */
export async function minuteSumsFrom(
  client: Redis,
  layout: Pick<RedisKeyLayout, "minuteSumsKey">,
): Promise<number | null> {
  const from = await client.hget(layout.minuteSumsKey, "from");
  return from === null ? null : Number(from);
}

/**
 * The sums of the minutes `query` bounds (its time bounds are minute starts, see
 * `minuteSpans`) that its rung, client key and budget window select, per field: one group per
 * minute and series, which `summaryOfGroups` adds up; and `requests`, the requests of every
 * series of those minutes, selected or not, which the caller checks against the records (see
 * the Redis store's `summary`). Read a page of fields at a time, each page's sums in one
 * `HMGET`.
 */
export async function minuteGroups(
  client: Redis,
  layout: Pick<RedisKeyLayout, "minuteSumsKey" | "minuteFieldsKey">,
  query: SpendRecordQuery,
): Promise<{ groups: RecordGroup[]; requests: number }> {
  const groups: RecordGroup[] = [];
  let total = 0;
  const pages = memberPages(client, layout.minuteFieldsKey, query.sinceMs, query.untilMs);
  for await (const fields of pages) {
    const sums = await client.hmget(layout.minuteSumsKey, ...fields);
    fields.forEach((field, index) => {
      const stored = sums[index];
      if (stored == null) return;
      const [requests, cost, input, output, cachedInput, cacheWrite] = stored
        .split(" ")
        .map(Number);
      total += requests!;
      const series = JSON.parse(field.slice(field.indexOf("\n") + 1)) as FieldSeries;
      if (!selects(query, series)) return;
      groups.push({
        rung: series[1],
        connectionId: series[2],
        model: series[3],
        requests: requests!,
        costMicroUsd: cost!,
        inputTokens: input!,
        outputTokens: output!,
        cachedInputTokens: cachedInput!,
        cacheWriteTokens: cacheWrite!,
      });
    });
  }
  return { groups, requests: total };
}

/** True when the series of a minute sums field is one `query` selects. */
function selects(query: SpendRecordQuery, series: FieldSeries): boolean {
  const [windowKey, rung, , , clientKeyId] = series;
  return (
    (query.windowKey === undefined || query.windowKey === windowKey) &&
    (query.rung === undefined || query.rung === rung) &&
    (query.clientKeyId === undefined || query.clientKeyId === clientKeyId)
  );
}
