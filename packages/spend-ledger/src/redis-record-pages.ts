import type { Redis } from "ioredis";
import { recordMatches, type SpendRecord, type SpendRecordQuery } from "./spend-record";

/**
 * Most records one read of the records' sorted set returns. A long range (a month of a busy
 * team's requests) is read in pages, so no single reply holds Redis up for every replica's
 * budget scripts, or outlasts the client's command timeout.
 */
const RECORD_PAGE = 1000;

/** The last member a page read, where the next page resumes. */
interface Position {
  score: string;
  member: string;
}

/**
 * The records of the sorted set `key` (scored by time) that `query` selects, in time order, a
 * page at a time. Members of one score sort by their bytes, so a page starts at the last score
 * read and passes over the members of that score up to the last one read: no record is read
 * twice, and none there before the read began is missed (one settled meanwhile may or may not be
 * listed, as with any read racing a write).
 */
export async function* recordPages(
  client: Redis,
  key: string,
  query: SpendRecordQuery,
): AsyncGenerator<SpendRecord[]> {
  const max = query.untilMs === undefined ? "+inf" : `(${query.untilMs}`;
  let min = query.sinceMs === undefined ? "-inf" : String(query.sinceMs);
  let after: Position | null = null;
  for (;;) {
    const reply = await client.zrangebyscore(key, min, max, "WITHSCORES", "LIMIT", 0, RECORD_PAGE);
    const page: SpendRecord[] = [];
    let last: Position | null = null;
    for (let index = 0; index < reply.length; index += 2) {
      const member = reply[index]!;
      const score = reply[index + 1]!;
      if (after !== null && !isAfter(score, member, after)) continue;
      last = { score, member };
      keepIfMatching(member, query, page);
    }
    if (page.length > 0) yield page;
    if (reply.length < 2 * RECORD_PAGE) return;
    if (last === null) {
      // A whole page of one score, all read already: more records share that instant than a
      // page holds. Read the rest of that instant at once, then go on after it.
      const position = after!;
      const rest = await client.zrangebyscore(key, position.score, position.score);
      const tail: SpendRecord[] = [];
      for (const member of rest) {
        if (isAfter(position.score, member, position)) keepIfMatching(member, query, tail);
      }
      if (tail.length > 0) yield tail;
      min = `(${position.score}`;
      after = null;
      continue;
    }
    after = last;
    min = last.score;
  }
}

/** Appends the record stored as `member` to `into` when `query` selects it. */
function keepIfMatching(member: string, query: SpendRecordQuery, into: SpendRecord[]): void {
  const record = JSON.parse(member) as SpendRecord;
  if (recordMatches(record, Date.parse(record.time), query)) into.push(record);
}

/** True when the member at `score` comes after `position` in the set's order. */
function isAfter(score: string, member: string, position: Position): boolean {
  if (score !== position.score) return true;
  return Buffer.compare(Buffer.from(member), Buffer.from(position.member)) > 0;
}
