import type { Redis } from "ioredis";
import { definedScript } from "./redis-defined-script";
import type { RedisKeyLayout } from "./redis-keys";
import { memberPages } from "./redis-record-pages";
import { MINUTE } from "./spend-minutes";
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
    total += addFieldGroups(fields, sums, query, groups);
  }
  return { groups, requests: total };
}

/**
 * One minute's sums fields and the count of its records, read in one script, so no booking lands
 * between them: KEYS[1] the sums hash, KEYS[2] its fields by minute, KEYS[3] the records; ARGV[1]
 * the minute's start, ARGV[2] its end. The fields' sums are read a thousand at a time.
 */
const oneMinuteScript = `
local fields = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], ARGV[1])
local sums = {}
for first = 1, #fields, 1000 do
  local page = redis.call('HMGET', KEYS[1], unpack(fields, first, math.min(first + 999, #fields)))
  for index = 1, #page do sums[#sums + 1] = page[index] end
end
return {fields, sums, redis.call('ZCOUNT', KEYS[3], ARGV[1], '(' .. ARGV[2])}
`;

/**
 * The sums of the one minute starting at `minuteMs` that `query` selects (as
 * {@link minuteGroups}), with `requests`, the requests of every series of that minute, and
 * `recorded`, the records that minute holds, both read at one instant: they differ only when
 * a store of an earlier version booked records there without sums. For the recent minutes, into
 * which settles may still be landing.
 */
async function oneMinuteGroups(
  client: Redis,
  layout: Pick<RedisKeyLayout, "minuteSumsKey" | "minuteFieldsKey" | "recordsKey">,
  query: SpendRecordQuery,
  minuteMs: number,
): Promise<{ groups: RecordGroup[]; requests: number; recorded: number }> {
  const oneMinute = definedScript<[string[], Array<string | null>, number]>(
    client,
    "planfirstSpendOneMinute",
    3,
    oneMinuteScript,
  );
  const [fields, sums, recorded] = await oneMinute(
    layout.minuteSumsKey,
    layout.minuteFieldsKey,
    layout.recordsKey,
    minuteMs,
    minuteMs + MINUTE,
  );
  const groups: RecordGroup[] = [];
  const requests = addFieldGroups(fields, sums, query, groups);
  return { groups, requests, recorded };
}

/**
 * The recent whole minutes of `span` (a range of records that reaches into them), from
 * `firstMs` to `lastMs` and none before `sumsFromMs`, each read by {@link oneMinuteGroups}:
 * `groups`, the sums of the minutes whose sums count every record they hold, and `rest`, the
 * parts of `span` left to read from the records (the other minutes and the partial ones).
 */
export async function recentMinuteGroups(
  client: Redis,
  layout: Pick<RedisKeyLayout, "minuteSumsKey" | "minuteFieldsKey" | "recordsKey">,
  span: SpendRecordQuery,
  sumsFromMs: number,
  firstMs: number,
  lastMs: number,
): Promise<{ groups: RecordGroup[]; rest: SpendRecordQuery[] }> {
  const whole: number[] = [];
  for (let minute = firstMs; minute <= lastMs; minute += MINUTE) {
    if (
      minute >= sumsFromMs &&
      (span.sinceMs === undefined || span.sinceMs <= minute) &&
      (span.untilMs === undefined || span.untilMs >= minute + MINUTE)
    ) {
      whole.push(minute);
    }
  }
  const read = await Promise.all(
    whole.map((minute) => oneMinuteGroups(client, layout, span, minute)),
  );
  let groups: RecordGroup[] = [];
  const rest: SpendRecordQuery[] = [];
  let start = span.sinceMs;
  whole.forEach((minute, index) => {
    const { groups: found, requests, recorded } = read[index]!;
    if (recorded !== requests) return;
    groups = groups.concat(found);
    if (start === undefined || start < minute) {
      rest.push({ ...span, sinceMs: start, untilMs: minute });
    }
    start = minute + MINUTE;
  });
  if (span.untilMs === undefined || start === undefined || start < span.untilMs) {
    rest.push({ ...span, sinceMs: start });
  }
  return { groups, rest };
}

/**
 * Adds to `groups` one group per field of `fields` (with its stored sums beside it in `sums`)
 * whose series `query` selects; returns the requests of every field, selected or not.
 */
function addFieldGroups(
  fields: readonly string[],
  sums: ReadonlyArray<string | null>,
  query: SpendRecordQuery,
  groups: RecordGroup[],
): number {
  let total = 0;
  fields.forEach((field, index) => {
    const stored = sums[index];
    if (stored == null) return;
    const [requests, cost, input, output, cachedInput, cacheWrite] = stored.split(" ").map(Number);
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
  return total;
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
