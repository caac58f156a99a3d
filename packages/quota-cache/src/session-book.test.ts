import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { QuotaCacheError } from "./errors";
import { createMemoryQuotaStore } from "./memory-store";
import type { QuotaStoreLogger } from "./quota-store";
import { createRedisQuotaStore } from "./redis";
import { createSessionBook } from "./session-book";
import { createSqliteQuotaStore } from "./sqlite";

const T0 = Date.parse("2026-11-30T10:00:00Z");
const HOUR = 3_600_000;
const A = { connectionId: "plan-a", model: "claude-sonnet-4-5" };
const B = { connectionId: "plan-b", model: "claude-sonnet-4-5" };

function clock(start = T0) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

describe("session book", () => {
  it("pins a session to the target that served it, and a later target replaces it", () => {
    const time = clock();
    const book = createSessionBook({ now: time.now });
    expect(book.pinOf("s1")).toBeUndefined();
    book.pin("s1", A);
    expect(book.pinOf("s1")).toEqual({ ...A, lastSeenMs: T0 });
    time.advance(1_000);
    book.pin("s1", B);
    expect(book.pinOf("s1")).toEqual({ ...B, lastSeenMs: T0 + 1_000 });
    expect(book.pinOf("s2")).toBeUndefined();
  });

  it("forgets a session idle for idleTtlMs, and an active one stays", () => {
    const time = clock();
    const book = createSessionBook({ now: time.now, idleTtlMs: HOUR });
    book.pin("idle", A);
    book.pin("active", B);
    for (let minute = 0; minute < 59; minute++) {
      time.advance(60_000);
      book.pin("active", B);
    }
    time.advance(60_000);
    expect(book.pinOf("idle")).toBeUndefined();
    expect(book.pinOf("active")?.connectionId).toBe("plan-b");
    expect(book.liveSessions()).toEqual(new Map([["plan-b", 1]]));
  });

  it("writes an unchanged pin again only once its last write is a tenth of the idle time old", () => {
    const time = clock();
    const store = createMemoryQuotaStore();
    let writes = 0;
    const counted = {
      ...store,
      put: (...args: Parameters<typeof store.put>) => {
        writes++;
        return store.put(...args);
      },
    };
    const book = createSessionBook({ store: counted, now: time.now, idleTtlMs: 100_000 });
    book.pin("s", A);
    time.advance(9_999);
    book.pin("s", A);
    expect(writes).toBe(1);
    time.advance(1);
    book.pin("s", A);
    expect(writes).toBe(2);
    book.pin("s", B);
    expect(writes).toBe(3);
  });

  it("is bounded: past maxEntries the least recently served sessions go first", () => {
    const time = clock();
    const store = createMemoryQuotaStore();
    const book = createSessionBook({ store, now: time.now, maxEntries: 20 });
    for (let i = 0; i < 100; i++) {
      time.advance(1_000);
      book.pin(`s${i}`, i % 2 === 0 ? A : B);
    }
    // Checked every tenth of maxEntries new sessions: never more than that over the bound.
    expect(store.connectionIds("sessions").length).toBeLessThanOrEqual(22);
    expect(book.pinOf("s99")).toBeDefined();
    expect(book.pinOf("s0")).toBeUndefined();
    expect(book.pinOf("s50")).toBeUndefined();
  });

  it("idleTtlMs 0 turns it off: nothing is read or written", () => {
    const store = createMemoryQuotaStore();
    const book = createSessionBook({ store, idleTtlMs: 0 });
    expect(book.enabled).toBe(false);
    book.pin("s", A);
    expect(store.connectionIds("sessions")).toEqual([]);
    expect(book.pinOf("s")).toBeUndefined();
    expect(book.liveSessions().size).toBe(0);
  });

  it("refuses a negative idle time or an empty bound with a QuotaCacheError", () => {
    expect(() => createSessionBook({ idleTtlMs: -1 })).toThrow(QuotaCacheError);
    expect(() => createSessionBook({ maxEntries: 0 })).toThrow(QuotaCacheError);
  });

  it("ignores a malformed record instead of throwing", () => {
    const store = createMemoryQuotaStore();
    store.put("sessions", { connectionId: "s", key: "pin", rev: T0, value: { model: 3 } });
    const book = createSessionBook({ store, now: () => T0 });
    expect(book.pinOf("s")).toBeUndefined();
    expect(() => book.pin("s", A)).not.toThrow();
    expect(book.pinOf("s")?.connectionId).toBe("plan-a");
  });
});

describe("session book on the persistent stores", () => {
  const directory = mkdtempSync(join(tmpdir(), "planfirst-session-book-"));
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redisPrefix = `planfirst-test:${randomUUID()}`;
  const silent: QuotaStoreLogger = { warn: () => {} };
  afterAll(async () => {
    rmSync(directory, { recursive: true, force: true });
    const admin = new Redis(redisUrl);
    const keys = await admin.keys(`${redisPrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it("SQLite: pins survive a restart", async () => {
    const path = join(directory, "state.db");
    const first = createSqliteQuotaStore({ path });
    createSessionBook({ store: first, now: () => T0 }).pin("s", A);
    await first.close();
    const second = createSqliteQuotaStore({ path });
    expect(createSessionBook({ store: second, now: () => T0 + 1 }).pinOf("s")).toEqual({
      ...A,
      lastSeenMs: T0,
    });
    await second.close();
  });

  it("Redis: a pin written on one replica is read on another, and a move replaces it there", async () => {
    const one = createRedisQuotaStore({ url: redisUrl, keyPrefix: redisPrefix, logger: silent });
    const two = createRedisQuotaStore({ url: redisUrl, keyPrefix: redisPrefix, logger: silent });
    await Promise.all([one.ready(), two.ready()]);
    const time = clock();
    const bookOne = createSessionBook({ store: one, now: time.now });
    const bookTwo = createSessionBook({ store: two, now: time.now });
    bookOne.pin("s", A);
    await eventually(() => expect(bookTwo.pinOf("s")?.connectionId).toBe("plan-a"));
    time.advance(1_000);
    bookTwo.pin("s", B);
    await eventually(() => expect(bookOne.pinOf("s")?.connectionId).toBe("plan-b"));
    // A replica that starts later loads what the others pinned.
    const three = createRedisQuotaStore({ url: redisUrl, keyPrefix: redisPrefix, logger: silent });
    await three.ready();
    expect(createSessionBook({ store: three, now: time.now }).pinOf("s")?.connectionId).toBe(
      "plan-b",
    );
    await Promise.all([one.close(), two.close(), three.close()]);
  });

  it("Redis down: pins live in this replica's mirror, nothing throws", async () => {
    const store = createRedisQuotaStore({
      url: "redis://127.0.0.1:1",
      keyPrefix: `${redisPrefix}:down`,
      logger: silent,
    });
    await store.ready();
    const book = createSessionBook({ store, now: () => T0 });
    expect(() => book.pin("s", A)).not.toThrow();
    expect(book.pinOf("s")?.connectionId).toBe("plan-a");
    await store.close();
  });
});

async function eventually(check: () => void, withinMs = 2_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
