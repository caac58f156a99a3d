import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { recordPages } from "../src/redis-record-pages";
import { type SpendRecord, type SpendRecordQuery, summarize } from "../src/spend-record";
import { redisUrl, uniquePrefix } from "./redis-url";

// The paged read of the records' sorted set against one read of the whole range: the same
// records in the same order, whatever the pages' boundaries fall on (many records of one
// millisecond, more of them than a page holds).

const prefix = uniquePrefix("record-pages");
const client = new Redis(redisUrl, { lazyConnect: true });
afterAll(async () => {
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  client.disconnect();
});

const startMs = Date.UTC(2026, 11, 4, 9);

function recordAt(timeMs: number, index: number): SpendRecord {
  return {
    time: new Date(timeMs).toISOString(),
    windowKey: "day:2026-12-04",
    rung: index % 3 === 0 ? "premium" : "cheap",
    connectionId: "openrouter",
    model: "qwen/qwen3-coder",
    inputTokens: 100 + index,
    outputTokens: 10,
    cachedInputTokens: index % 2,
    cacheWriteTokens: 0,
    costMicroUsd: 7 + index,
    costUsd: (7 + index) / 1e6,
    reservedMicroUsd: 100,
    clientKeyId: index % 4 === 0 ? "alice" : null,
    requestId: `req-${index}`,
    reservationId: `res-${String(index).padStart(6, "0")}`,
  };
}

async function readAll(key: string, query: SpendRecordQuery): Promise<SpendRecord[]> {
  const records: SpendRecord[] = [];
  for await (const page of recordPages(client, key, query)) records.push(...page);
  return records;
}

describe("recordPages", () => {
  it("reads a long range in pages exactly as one read, ties across page boundaries included", async () => {
    const key = `${prefix}:ties`;
    const records: SpendRecord[] = [];
    // 3,500 records: runs of 1 to 40 in one millisecond, and one instant shared by 2,300 (more
    // than two pages hold).
    let timeMs = startMs;
    for (let index = 0; index < 3_500; ) {
      const run = index === 600 ? 2_300 : 1 + (index % 40);
      for (let at = 0; at < run && index < 3_500; at++, index++)
        records.push(recordAt(timeMs, index));
      timeMs += 1;
    }
    const args: (string | number)[] = [];
    for (const record of records) args.push(Date.parse(record.time), JSON.stringify(record));
    await client.zadd(key, ...args);
    const whole = (await client.zrangebyscore(key, "-inf", "+inf")).map(
      (member) => JSON.parse(member) as SpendRecord,
    );
    expect(whole).toHaveLength(3_500);

    const paged = await readAll(key, {});
    expect(paged.map((r) => r.reservationId)).toEqual(whole.map((r) => r.reservationId));

    const sinceMs = Date.parse(whole[500]!.time);
    const untilMs = Date.parse(whole[3_200]!.time);
    const query = { sinceMs, untilMs, clientKeyId: "alice" };
    const expected = whole.filter(
      (r) =>
        Date.parse(r.time) >= sinceMs && Date.parse(r.time) < untilMs && r.clientKeyId === "alice",
    );
    expect((await readAll(key, query)).map((r) => r.reservationId)).toEqual(
      expected.map((r) => r.reservationId),
    );
    expect(summarize(await readAll(key, query))).toEqual(summarize(expected));
  });

  it("reads an empty range as no page", async () => {
    expect(await readAll(`${prefix}:empty`, { sinceMs: startMs })).toEqual([]);
  });
});
