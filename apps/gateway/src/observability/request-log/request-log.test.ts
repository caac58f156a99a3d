import { randomUUID } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { RequestFilter } from "./request-filter";
import { createRequestLog } from "./request-log";
import { createRedisRequestLogStore } from "./request-log-redis";
import {
  collectPages,
  createMemoryRequestLogStore,
  type RequestLogStore,
} from "./request-log-store";

const DAY = 86_400_000;
const read = (store: RequestLogStore, filter: RequestFilter) => collectPages(store.pages(filter));

function clock(startMs = Date.parse("2026-11-30T10:00:00Z")) {
  let t = startMs;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** Ends one trace of `keyId` on `log`, as a served request would. */
function serve(log: ReturnType<typeof createRequestLog>, keyId: string) {
  const trace = log.begin(randomUUID(), keyId);
  trace.modelAsked = "auto/thrifty";
  trace.end(200, "served");
  return trace.requestId;
}

describe("the request log's writer", () => {
  it("ending a request only queues it: the store is written off the request path, in one batch", async () => {
    const store = createMemoryRequestLogStore({ maxRecords: 100 });
    const log = createRequestLog({ store, now: clock().now, maxRecords: 100, maxAgeDays: 30 });
    serve(log, "a");
    serve(log, "b");
    expect(await read(store, { limit: 10 })).toEqual([]);
    await log.flush();
    expect((await read(store, { limit: 10 })).map((r) => r.keyId)).toEqual(["b", "a"]);
    await log.close();
  });

  it("a queue that reaches batchSize is written at the next turn, without waiting for the timer", async () => {
    const store = createMemoryRequestLogStore({ maxRecords: 100 });
    const log = createRequestLog({
      store,
      now: clock().now,
      maxRecords: 100,
      maxAgeDays: 30,
      batchSize: 3,
      flushIntervalMs: 3_600_000,
    });
    for (const key of ["a", "b", "c"]) serve(log, key);
    await nextTurn();
    await nextTurn();
    expect(await read(store, { limit: 10 })).toHaveLength(3);
    await log.close();
  });

  it("a full queue drops its oldest records and counts them", async () => {
    const store = createMemoryRequestLogStore({ maxRecords: 100 });
    let dropped = 0;
    const log = createRequestLog({
      store,
      now: clock().now,
      maxRecords: 100,
      maxAgeDays: 30,
      maxQueued: 3,
      onDropped: (count) => {
        dropped += count;
      },
    });
    for (const key of ["a", "b", "c", "d", "e"]) serve(log, key);
    expect(dropped).toBe(2);
    expect((await log.query({ limit: 10 })).map((r) => r.keyId)).toEqual(["e", "d", "c"]);
    await log.close();
  });

  it("records past maxRecords or older than maxAgeDays (on the log's clock) are pruned", async () => {
    const time = clock();
    const store = createMemoryRequestLogStore({ maxRecords: 3 });
    const log = createRequestLog({ store, now: time.now, maxRecords: 3, maxAgeDays: 2 });
    for (const key of ["a", "b", "c", "d"]) serve(log, key);
    expect((await log.query({ limit: 10 })).map((r) => r.keyId)).toEqual(["d", "c", "b"]);
    time.advance(DAY);
    serve(log, "e");
    time.advance(DAY + 60_000);
    serve(log, "f");
    // Two days and a minute after the first four arrived: only the later two are kept.
    expect((await log.query({ limit: 10 })).map((r) => r.keyId)).toEqual(["f", "e"]);
    await log.close();
  });

  it("a store that cannot be written keeps the queue for the next write and says so once", async () => {
    const store = createRedisRequestLogStore({
      url: "redis://127.0.0.1:1",
      key: "planfirst-test:unreachable:requests",
      maxRecords: 100,
    });
    const errors: unknown[] = [];
    let dropped = 0;
    const log = createRequestLog({
      store,
      now: clock().now,
      maxRecords: 100,
      maxAgeDays: 30,
      maxQueued: 1,
      onError: (error) => errors.push(error),
      onDropped: (count) => {
        dropped += count;
      },
    });
    serve(log, "a");
    await expect(log.flush()).rejects.toBeDefined();
    // "a" went back to the queue, so "b" overflows it: the older one is dropped and counted.
    serve(log, "b");
    expect(dropped).toBe(1);
    await expect(log.flush()).rejects.toBeDefined();
    expect(errors).toHaveLength(1);
    await log.close();
  });

  it("with no store (server.requestLog.enabled false) a trace costs nothing and reads are empty", async () => {
    const log = createRequestLog({ store: null, now: clock().now, maxRecords: 1, maxAgeDays: 1 });
    expect(log.enabled).toBe(false);
    serve(log, "a");
    expect(await log.query({ limit: 10 })).toEqual([]);
    await log.close();
  });
});
