import type { Redis } from "ioredis";
import { recordMatches, type SpendRecord, type SpendRecordQuery } from "./spend-record";

/**
 * Most members one read of a sorted set returns. A long range (a month of a busy team's
 * records) is read in pages, so no single reply holds Redis up for every replica's budget
 * scripts, or outlasts the client's command timeout.
 */
const PAGE = 1000;

/** The last member a page read, where the next page resumes. */
interface Position {
  score: string;
  member: string;
}

/**
 * The members of the sorted set `key` scored from `sinceMs` (inclusive) to `untilMs`
 * (exclusive), either bound optional, in order, a page at a time. Members of one score sort by
 * their bytes, so a page starts at the last score read and passes over the members of that
 * score up to the last one read: no member is read twice, and none there before the read began
 * is missed (one added meanwhile may or may not be listed, as with any read racing a write).
 */
export async function* memberPages(
  client: Redis,
  key: string,
  sinceMs: number | undefined,
  untilMs: number | undefined,
): AsyncGenerator<string[]> {
  const max = untilMs === undefined ? "+inf" : `(${untilMs}`;
  let min = sinceMs === undefined ? "-inf" : String(sinceMs);
  let after: Position | null = null;
  for (;;) {
    const reply = await client.zrangebyscore(key, min, max, "WITHSCORES", "LIMIT", 0, PAGE);
    const page: string[] = [];
    let last: Position | null = null;
    for (let index = 0; index < reply.length; index += 2) {
      const member = reply[index]!;
      const score = reply[index + 1]!;
      if (after !== null && !isAfter(score, member, after)) continue;
      last = { score, member };
      page.push(member);
    }
    if (page.length > 0) yield page;
    if (reply.length < 2 * PAGE) return;
    if (last === null) {
      // A whole page of one score, all read already: more members share that score than a
      // page holds. Read the rest of that score at once, then go on after it.
      const position = after!;
      const rest = await client.zrangebyscore(key, position.score, position.score);
      const tail = rest.filter((member) => isAfter(position.score, member, position));
      if (tail.length > 0) yield tail;
      min = `(${position.score}`;
      after = null;
      continue;
    }
    after = last;
    min = last.score;
  }
}

/**
 * The records of the sorted set `key` (scored by time) that `query` selects, in time order, a
 * page at a time (see {@link memberPages}).
 */
export async function* recordPages(
  client: Redis,
  key: string,
  query: SpendRecordQuery,
): AsyncGenerator<SpendRecord[]> {
  for await (const members of memberPages(client, key, query.sinceMs, query.untilMs)) {
    const page: SpendRecord[] = [];
    for (const member of members) {
      const record = JSON.parse(member) as SpendRecord;
      if (recordMatches(record, Date.parse(record.time), query)) page.push(record);
    }
    if (page.length > 0) yield page;
  }
}

/** True when the member at `score` comes after `position` in the set's order. */
function isAfter(score: string, member: string, position: Position): boolean {
  if (score !== position.score) return true;
  return Buffer.compare(Buffer.from(member), Buffer.from(position.member)) > 0;
}
