import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { RequestFilter } from "./request-filter";
import { createRedisRequestLogStore } from "./request-log-redis";
import { createSqliteRequestLogStore, requestLogPathFor } from "./request-log-sqlite";
import {
  collectPages,
  createMemoryRequestLogStore,
  READ_PAGE,
  type RequestLogStore,
} from "./request-log-store";
import type { RequestRecord } from "./request-record";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const dir = mkdtempSync(join(tmpdir(), "planfirst-request-log-"));
const redisKeys: string[] = [];

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new Redis(REDIS_URL);
  for (const key of redisKeys) {
    // The stream, and its key indexes under its hash tag.
    const indexes = await client.keys(`{${key}}*`);
    await client.del(key, ...indexes);
  }
  await client.quit();
});

const T0 = Date.parse("2026-11-30T10:00:00Z");
const DAY = 86_400_000;

function record(index: number, fields: Partial<RequestRecord> = {}): RequestRecord {
  return {
    at: new Date(T0 + index * 60_000).toISOString(),
    requestId: `r${index}`,
    keyId: index % 2 === 0 ? "team" : "intern",
    modelAsked: "auto/thrifty",
    rung: index % 3 === 0 ? "subscription" : "cheap",
    connection: index % 3 === 0 ? "claude-plan" : "openrouter",
    modelServed: index % 3 === 0 ? "claude-sonnet-4-5" : "qwen/qwen3-coder",
    attempts: [],
    status: 200,
    outcome: "served",
    inputTokens: 10,
    outputTokens: 2,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    latencyMs: 5,
    ttfbMs: 5,
    sessionHash: null,
    dropped: [],
    waitedMs: 0,
    stream: false,
    ...fields,
  };
}

const all = (limit = 100): RequestFilter => ({ limit });
const read = (store: RequestLogStore, filter: RequestFilter) => collectPages(store.pages(filter));
const ids = (records: readonly RequestRecord[]) => records.map((r) => r.requestId);

const drivers: [string, (maxRecords: number) => RequestLogStore][] = [
  ["memory", (maxRecords) => createMemoryRequestLogStore({ maxRecords })],
  ["sqlite", () => createSqliteRequestLogStore({ path: join(dir, `${randomUUID()}.requests.db`) })],
  ["redis", (maxRecords) => openRedis(maxRecords).store],
];

describe.each(drivers)("the %s request log store", (_name, open) => {
  it("returns what was appended newest first, filtered and within the limit", async () => {
    const store = open(1_000);
    try {
      await store.append([0, 1, 2, 3, 4, 5].map((i) => record(i)));
      await store.append([record(6, { status: 429, outcome: "budget_exhausted", rung: null })]);
      expect(ids(await read(store, all()))).toEqual(["r6", "r5", "r4", "r3", "r2", "r1", "r0"]);
      expect(ids(await read(store, all(2)))).toEqual(["r6", "r5"]);
      expect(ids(await read(store, { limit: 100, key: "intern" }))).toEqual(["r5", "r3", "r1"]);
      expect(ids(await read(store, { limit: 100, rung: "subscription" }))).toEqual(["r3", "r0"]);
      expect(ids(await read(store, { limit: 100, model: "qwen/qwen3-coder" }))).toEqual([
        "r5",
        "r4",
        "r2",
        "r1",
      ]);
      expect(ids(await read(store, { limit: 100, statusMin: 400, statusMax: 499 }))).toEqual([
        "r6",
      ]);
      expect(
        ids(await read(store, { limit: 100, sinceMs: T0 + 2 * 60_000, untilMs: T0 + 4 * 60_000 })),
      ).toEqual(["r3", "r2"]);
    } finally {
      await store.close();
    }
  });

  it("reads past one page, newest first, and stops at the limit", async () => {
    const store = open(10_000);
    try {
      const count = 2 * READ_PAGE + 7;
      await store.append(Array.from({ length: count }, (_, i) => record(i)));
      const newest = await read(store, all(count + 10));
      expect(newest).toHaveLength(count);
      expect(newest[0]!.requestId).toBe(`r${count - 1}`);
      expect(newest.at(-1)!.requestId).toBe("r0");
      expect(await read(store, all(READ_PAGE + 1))).toHaveLength(READ_PAGE + 1);
    } finally {
      await store.close();
    }
  });

  it("reads across many written batches, newest first, to the limit", async () => {
    const store = open(10_000);
    try {
      // Forty writes of seven: the SQLite log's reads grow from one row to sixteen.
      for (let write = 0; write < 40; write++) {
        await store.append(Array.from({ length: 7 }, (_, i) => record(write * 7 + i)));
      }
      const newest = (count: number, keep: (index: number) => boolean = () => true) =>
        Array.from({ length: 280 }, (_, i) => 279 - i)
          .filter(keep)
          .slice(0, count)
          .map((i) => `r${i}`);
      for (const limit of [1, 7, 8, 50, 279, 1_000]) {
        expect(ids(await read(store, all(limit)))).toEqual(newest(limit));
      }
      expect(ids(await read(store, { limit: 60, rung: "subscription" }))).toEqual(
        newest(60, (i) => i % 3 === 0),
      );
    } finally {
      await store.close();
    }
  });

  it("a prune keeps the newest maxRecords and none older than the age bound", async () => {
    const store = open(4);
    try {
      await store.append([0, 1, 2, 3, 4, 5].map((i) => record(i)));
      await store.prune({ maxRecords: 4, beforeMs: T0 });
      expect(ids(await read(store, all()))).toEqual(["r5", "r4", "r3", "r2"]);
      await store.append([record(3 * 24 * 60, { requestId: "later" })]);
      await store.prune({ maxRecords: 4, beforeMs: T0 + DAY });
      expect(ids(await read(store, all()))).toEqual(["later"]);
    } finally {
      await store.close();
    }
  });

  it("an age bound that falls inside one write keeps that write's younger records", async () => {
    const store = open(100);
    try {
      await store.append([0, 1, 2, 3, 4].map((i) => record(i)));
      await store.prune({ maxRecords: 100, beforeMs: T0 + 2 * 60_000 });
      expect(ids(await read(store, all()))).toEqual(["r4", "r3", "r2"]);
      expect(
        ids(await read(store, { limit: 100, sinceMs: T0 + 3 * 60_000, untilMs: T0 + DAY })),
      ).toEqual(["r4", "r3"]);
      await store.append([record(5)]);
      expect(ids(await read(store, { limit: 2, key: "team" }))).toEqual(["r4", "r2"]);
    } finally {
      await store.close();
    }
  });
});

/** A Redis request log under a key of its own (deleted after the file), and that key. */
function openRedis(maxRecords: number) {
  const key = `planfirst-test:${randomUUID()}:requests`;
  redisKeys.push(key);
  return { key, store: createRedisRequestLogStore({ url: REDIS_URL, key, maxRecords }) };
}

describe("the redis request log's client key index", () => {
  const admin = new Redis(REDIS_URL);
  afterAll(() => admin.quit());

  it("indexes each record under its key, so a key's view reads its own entries", async () => {
    const { key, store } = openRedis(1_000);
    try {
      await store.append([0, 1, 2, 3, 4, 5].map((i) => record(i)));
      expect(await admin.xlen(`{${key}}:key:team`)).toBe(3);
      expect(await admin.xlen(`{${key}}:key:intern`)).toBe(3);
      // Each index entry is the id of its record in the log.
      const [first] = (await admin.xrange(`{${key}}:key:intern`, "-", "+", "COUNT", 1)) as [
        string,
        string[],
      ][];
      const [entry] = (await admin.xrange(key, first![0], first![0])) as [string, string[]][];
      expect(JSON.parse(entry![1][1]!).requestId).toBe("r1");
      expect(ids(await read(store, { limit: 100, key: "team" }))).toEqual(["r4", "r2", "r0"]);
      expect(ids(await read(store, { limit: 100, key: "nobody" }))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("a key's view also finds what an earlier version wrote without an index, in order", async () => {
    const { key, store } = openRedis(1_000);
    try {
      // An earlier version's entries: the record alone, in no index.
      for (const i of [0, 1, 2]) await admin.xadd(key, "*", "r", JSON.stringify(record(i)));
      expect(ids(await read(store, { limit: 100, key: "team" }))).toEqual(["r2", "r0"]);
      await store.append([3, 4, 5, 6].map((i) => record(i)));
      expect(ids(await read(store, { limit: 100, key: "team" }))).toEqual(["r6", "r4", "r2", "r0"]);
      expect(ids(await read(store, { limit: 3, key: "team" }))).toEqual(["r6", "r4", "r2"]);
      expect(
        ids(await read(store, { limit: 100, key: "intern", sinceMs: T0 + 2 * 60_000 })),
      ).toEqual(["r5", "r3"]);
    } finally {
      await store.close();
    }
  });

  it("a key's view never looks past the newest maxRecords records", async () => {
    // Far below the stream's approximate trim: it holds all twelve, readers see five.
    const { store } = openRedis(5);
    try {
      await store.append(Array.from({ length: 12 }, (_, i) => record(i)));
      expect(ids(await read(store, all()))).toEqual(["r11", "r10", "r9", "r8", "r7"]);
      expect(ids(await read(store, { limit: 100, key: "team" }))).toEqual(["r10", "r8"]);
      expect(ids(await read(store, { limit: 100, key: "intern" }))).toEqual(["r11", "r9", "r7"]);
    } finally {
      await store.close();
    }
  });

  it("a prune trims the indexes with the log and drops those left empty", async () => {
    const { key, store } = openRedis(1_000);
    try {
      await store.append([0, 1, 2, 3].map((i) => record(i)));
      await store.append([record(4, { keyId: "gone" })]);
      await store.prune({ maxRecords: 1_000, beforeMs: T0 + 2 * 60_000 });
      expect(await admin.xlen(`{${key}}:key:team`)).toBe(1);
      expect(await admin.xlen(`{${key}}:key:intern`)).toBe(1);
      await store.prune({ maxRecords: 1_000, beforeMs: T0 + 4 * 60_000 });
      expect(await admin.exists(`{${key}}:key:team`, `{${key}}:key:intern`)).toBe(0);
      expect(await admin.smembers(`{${key}}:keys`)).toEqual([`{${key}}:key:gone`]);
      expect(ids(await read(store, { limit: 100, key: "gone" }))).toEqual(["r4"]);
    } finally {
      await store.close();
    }
  });
});

describe("the redis request log's index of unserved records", () => {
  const admin = new Redis(REDIS_URL);
  afterAll(() => admin.quit());
  const failed = (index: number, status: number) =>
    record(index, { status, outcome: status === 499 ? "client_gone" : "all_targets_failed" });

  it("indexes each record answered outside 2xx, and a view of failures reads those", async () => {
    const { key, store } = openRedis(1_000);
    try {
      await store.append([record(0), failed(1, 502), record(2, { status: 201 }), failed(3, 429)]);
      await store.append([record(4), failed(5, 499), failed(6, 500)]);
      expect(await admin.xlen(`{${key}}:unserved`)).toBe(4);
      expect(ids(await read(store, { limit: 100, statusMin: 500, statusMax: 599 }))).toEqual([
        "r6",
        "r1",
      ]);
      expect(ids(await read(store, { limit: 100, statusMin: 400, statusMax: 499 }))).toEqual([
        "r5",
        "r3",
      ]);
      expect(ids(await read(store, { limit: 1, statusMin: 400, statusMax: 599 }))).toEqual(["r6"]);
      // A served status is in no index: its view scans, as before.
      expect(ids(await read(store, { limit: 100, statusMin: 200, statusMax: 299 }))).toEqual([
        "r4",
        "r2",
        "r0",
      ]);
    } finally {
      await store.close();
    }
  });

  it("a view of failures also finds what earlier versions wrote outside the index, in order", async () => {
    const { key, store } = openRedis(1_000);
    try {
      // A version before any index: the record alone.
      await admin.xadd(key, "*", "r", JSON.stringify(failed(0, 503)));
      await admin.xadd(key, "*", "r", JSON.stringify(record(1)));
      // The version with the key index only: the record, its key's index, the key marker.
      const id = await admin.xadd(key, "*", "r", JSON.stringify(failed(2, 429)));
      await admin.xadd(`{${key}}:key:team`, id!, "i", "");
      await admin.set(`{${key}}:indexed-from`, id!);
      const fourXx = { limit: 100, statusMin: 400, statusMax: 499 };
      expect(ids(await read(store, fourXx))).toEqual(["r2"]);
      await store.append([failed(3, 404), record(4), failed(5, 500)]);
      expect(ids(await read(store, { limit: 100, statusMin: 400, statusMax: 599 }))).toEqual([
        "r5",
        "r3",
        "r2",
        "r0",
      ]);
      expect(ids(await read(store, fourXx))).toEqual(["r3", "r2"]);
      // The key index was there before: a key's view reads it, and scans only below its start.
      expect(ids(await read(store, { limit: 100, key: "team" }))).toEqual(["r4", "r2", "r0"]);
      // A replica of an earlier version still writing: the view of failures reads the index,
      // so it misses that record until the replica is upgraded (the whole log still has it).
      await admin.xadd(key, "*", "r", JSON.stringify(failed(6, 500)));
      expect(ids(await read(store, { limit: 1, statusMin: 500, statusMax: 599 }))).toEqual(["r5"]);
      expect(ids(await read(store, all(1)))).toEqual(["r6"]);
    } finally {
      await store.close();
    }
  });

  it("a view of failures never looks past the newest maxRecords records", async () => {
    const { store } = openRedis(5);
    try {
      await store.append(Array.from({ length: 12 }, (_, i) => failed(i, i % 2 === 0 ? 500 : 200)));
      expect(ids(await read(store, { limit: 100, statusMin: 500, statusMax: 599 }))).toEqual([
        "r10",
        "r8",
      ]);
    } finally {
      await store.close();
    }
  });

  it("a prune trims the index with the log and drops it once empty", async () => {
    const { key, store } = openRedis(1_000);
    try {
      await store.append([failed(0, 500), failed(1, 502), record(2), failed(3, 429)]);
      await store.prune({ maxRecords: 1_000, beforeMs: T0 + 2 * 60_000 });
      expect(await admin.xlen(`{${key}}:unserved`)).toBe(1);
      await store.prune({ maxRecords: 1_000, beforeMs: T0 + 4 * 60_000 });
      expect(await admin.exists(`{${key}}:unserved`)).toBe(0);
      await store.append([failed(5, 503)]);
      expect(ids(await read(store, { limit: 100, statusMin: 500, statusMax: 599 }))).toEqual([
        "r5",
      ]);
    } finally {
      await store.close();
    }
  });

  it("answers every filter as the memory log does, index or scan", async () => {
    const { store } = openRedis(1_000);
    const memory = createMemoryRequestLogStore({ maxRecords: 1_000 });
    const statuses = [200, 200, 201, 429, 499, 500, 502, 200, 404, 200, 503];
    const records = Array.from({ length: 44 }, (_, i) =>
      record(i, {
        status: statuses[(i * 7) % statuses.length]!,
        modelAsked: i % 5 === 0 ? "gpt-5" : "auto/thrifty",
      }),
    );
    try {
      for (let at = 0; at < records.length; at += 9) {
        await store.append(records.slice(at, at + 9));
        await memory.append(records.slice(at, at + 9));
      }
      const ranges = [
        {},
        { statusMin: 200, statusMax: 299 },
        { statusMin: 400, statusMax: 499 },
        { statusMin: 500, statusMax: 599 },
        { statusMin: 429, statusMax: 429 },
        { statusMin: 100, statusMax: 199 },
      ];
      for (const range of ranges) {
        for (const narrow of [{}, { key: "team" }, { model: "gpt-5" }, { rung: "cheap" }]) {
          for (const limit of [2, 100]) {
            const filter: RequestFilter = { limit, ...range, ...narrow };
            expect(ids(await read(store, filter)), JSON.stringify(filter)).toEqual(
              ids(await read(memory, filter)),
            );
          }
        }
      }
    } finally {
      await store.close();
      await memory.close();
    }
  });
});

describe("the SQLite request log file", () => {
  it("sits beside the state file, named after it", () => {
    expect(requestLogPathFor(".planfirst/state.db")).toBe(".planfirst/state.requests.db");
    expect(requestLogPathFor("/var/lib/planfirst/state")).toBe(
      "/var/lib/planfirst/state.requests.db",
    );
  });

  it("moves a file of one row per record to batch rows when opened, losing none", async () => {
    const path = join(dir, "first-layout.requests.db");
    const old = new Database(path);
    old.exec(`CREATE TABLE request_log (
      id INTEGER PRIMARY KEY AUTOINCREMENT, at_ms INTEGER NOT NULL, key_id TEXT NOT NULL,
      model_asked TEXT, model_served TEXT, rung TEXT, status INTEGER NOT NULL, record TEXT NOT NULL)`);
    const insert = old.prepare(
      "INSERT INTO request_log (at_ms, key_id, model_asked, model_served, rung, status, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const count = 600;
    for (let i = 0; i < count; i++) {
      const r = record(i);
      insert.run(
        Date.parse(r.at),
        r.keyId,
        r.modelAsked,
        r.modelServed,
        r.rung,
        r.status,
        JSON.stringify(r),
      );
    }
    old.close();
    const store = createSqliteRequestLogStore({ path });
    try {
      const newest = await read(store, all(count + 1));
      expect(ids(newest)).toEqual(Array.from({ length: count }, (_, i) => `r${count - 1 - i}`));
      await store.append([record(count)]);
      expect(ids(await read(store, all(2)))).toEqual([`r${count}`, `r${count - 1}`]);
    } finally {
      await store.close();
    }
    const tables = new Database(path, { readonly: true });
    const names = tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    tables.close();
    expect(names).not.toContainEqual({ name: "request_log" });
  });

  it("skips what is not a valid record in a damaged row and reads the rest", async () => {
    const path = join(dir, "damaged.requests.db");
    const store = createSqliteRequestLogStore({ path });
    try {
      await store.append([record(1), record(2)]);
      const raw = new Database(path);
      raw
        .prepare(
          `INSERT INTO request_log_batch (first_at_ms, last_at_ms, count, min_status, max_status, tags, records)
           VALUES (0, ?, 3, 200, 200, ?, ?)`,
        )
        .run(
          T0 + 3 * 60_000,
          "\nk:intern\n",
          JSON.stringify([null, { requestId: "no-fields" }, record(3)]),
        );
      raw
        .prepare(
          `INSERT INTO request_log_batch (first_at_ms, last_at_ms, count, min_status, max_status, tags, records)
           VALUES (0, 0, 1, 200, 200, '', 'not json')`,
        )
        .run();
      raw.close();
      expect(ids(await read(store, all()))).toEqual(["r3", "r2", "r1"]);
      // Prunes step over what is not a record too.
      await store.prune({ maxRecords: 100, beforeMs: T0 + 2 * 60_000 });
      expect(ids(await read(store, all()))).toEqual(["r3", "r2"]);
    } finally {
      await store.close();
    }
  });

  it("writes a new file in 16 KiB pages, and an existing file keeps its own", async () => {
    const pageSize = (path: string) => {
      const file = new Database(path, { readonly: true });
      const size = file.pragma("page_size", { simple: true });
      file.close();
      return size;
    };
    const fresh = join(dir, "fresh.requests.db");
    const store = createSqliteRequestLogStore({ path: fresh });
    await store.append([record(1)]);
    await store.close();
    expect(pageSize(fresh)).toBe(16_384);

    // A file an earlier version wrote, in SQLite's default 4 KiB pages.
    const earlier = join(dir, "earlier.requests.db");
    const first = new Database(earlier);
    first.pragma("page_size = 4096");
    // A page size is fixed once the file holds its first table.
    first.exec("CREATE TABLE written_before (id INTEGER PRIMARY KEY)");
    first.close();
    const before = createSqliteRequestLogStore({ path: earlier });
    await before.append([record(1)]);
    await before.close();
    const reopened = createSqliteRequestLogStore({ path: earlier });
    await reopened.append([record(2)]);
    expect(ids(await read(reopened, all()))).toEqual(["r2", "r1"]);
    await reopened.close();
    expect(pageSize(earlier)).toBe(4096);
  });

  it("writes its rows on the event loop once its writing thread has stopped, losing none", async () => {
    const path = join(dir, "writer-gone.requests.db");
    const store = createSqliteRequestLogStore({ path });
    // The store's own connection holds the file open; its writing thread opens the path anew
    // once it has started, and finds a directory there: it cannot open it and stops.
    renameSync(path, `${path}.moved`);
    mkdirSync(path);
    try {
      // The first append may reach the thread before it has stopped, and is refused then
      // (the request log keeps such a batch and writes it again); the next go to the store's
      // own connection.
      let refused = 0;
      for (;;) {
        try {
          await store.append([record(1)]);
          break;
        } catch (error) {
          expect(String(error)).toMatch(/SQLITE_CANTOPEN|unable to open/);
          expect(++refused).toBeLessThan(50);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      await store.append([record(2)]);
      expect(ids(await read(store, all()))).toEqual(["r2", "r1"]);
    } finally {
      await store.close();
    }
  });

  it("keeps its records across a reopen", async () => {
    const path = join(dir, "reopen.requests.db");
    const first = createSqliteRequestLogStore({ path });
    await first.append([record(1)]);
    await first.close();
    expect(existsSync(path)).toBe(true);
    const second = createSqliteRequestLogStore({ path });
    expect(ids(await read(second, all()))).toEqual(["r1"]);
    await second.close();
  });
});
