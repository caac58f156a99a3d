import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSpendLedger, isRefusal, type Reservation, type SpendLedger } from "../src/index";
import { createRedisSpendStore, type RedisSpendStore } from "../src/redis";
import { freePort, hasRedisServer, TestRedisServer } from "./redis-server";
import { makeTempDir } from "./temp-dir";

if (!hasRedisServer) {
  console.warn("redis-server is not installed: the Redis outage tests are skipped");
}

const nowMs = Date.UTC(2026, 10, 30, 12);
const usage = { model: "gpt-4.1-mini", inputTokens: 1000, outputTokens: 100 };
/** What a request waits at most for an answer while the store is away. */
const answerWithinMs = 1000;

async function reserveMany(ledger: SpendLedger, count: number, usd: number) {
  const held: Reservation[] = [];
  for (let index = 0; index < count; index++) {
    const result = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: usd,
      requestId: `outage-${index}`,
    });
    if (isRefusal(result)) throw new Error("refused");
    held.push(result);
  }
  return held;
}

async function timed<T>(promise: Promise<T>): Promise<{ ms: number; outcome: unknown }> {
  const start = performance.now();
  const outcome = await promise.then(
    (value) => value,
    (error: unknown) => error,
  );
  return { ms: performance.now() - start, outcome };
}

describe.skipIf(!hasRedisServer)("Redis spend store through a Redis outage", () => {
  const temp = makeTempDir();
  let server: TestRedisServer;
  const stores: RedisSpendStore[] = [];

  beforeAll(async () => {
    server = new TestRedisServer(await freePort(), temp.dir);
    await server.start();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    server.resume();
    await server.kill();
    temp.remove();
  });

  const open = (keyPrefix: string, extra: { journalPath?: string } = {}) => {
    const warnings: string[] = [];
    const store = createRedisSpendStore({
      url: server.url,
      keyPrefix,
      logger: { warn: (_fields, message) => warnings.push(message) },
      ...extra,
    });
    stores.push(store);
    return { store, warnings };
  };

  it("refuses reserves at once, journals settles, and books each exactly once after Redis returns", async () => {
    const consoleError = vi.spyOn(console, "error");
    const { store, warnings } = open("killed", { journalPath: join(temp.dir, "journal.db") });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 10 }, now: () => nowMs });
    await ledger.ready();
    const held = await reserveMany(ledger, 24, 0.05);
    const costMicro = held.map((_, index) => 10_000 + index * 137);
    const settle = (index: number) => ledger.settle(held[index]!, costMicro[index]! / 1e6, usage);
    for (let index = 0; index < 8; index++) await settle(index);

    // Kill Redis while four settles are in flight: some may have run, some not.
    const inFlight = [8, 9, 10, 11].map(settle);
    await server.kill();
    const racing = await Promise.all(inFlight);
    expect(racing.every((result) => result.booked)).toBe(true);
    await vi.waitFor(() => expect(warnings).toHaveLength(1));

    const refused = await timed(
      ledger.reserve({
        rung: "cheap",
        connectionId: "openai",
        model: "gpt-4.1-mini",
        maxCostUsd: 0.01,
        requestId: "during-outage",
      }),
    );
    expect(refused.outcome).toMatchObject({ name: "SpendLedgerError", code: "store_unavailable" });
    expect(refused.ms).toBeLessThan(answerWithinMs);

    for (let index = 12; index < 20; index++) {
      const during = await timed(settle(index));
      expect(during.outcome).toMatchObject({ booked: true, journaled: true });
      expect(during.ms).toBeLessThan(answerWithinMs);
    }
    // A second settle of a journaled reservation is not journaled twice.
    expect((await settle(12)).booked).toBe(false);
    expect(await ledger.release(held[20]!)).toEqual({ released: true });
    expect(store.journalSize()).toBeGreaterThanOrEqual(9);
    expect(warnings).toHaveLength(1);

    await server.start();
    await vi.waitFor(() => expect(store.journalSize()).toBe(0), { timeout: 10_000 });
    expect(warnings).toHaveLength(2);

    // The books agree to the micro-dollar: 20 settles, each once; 3 reservations still held.
    const expectedMicro = costMicro.slice(0, 20).reduce((sum, micro) => sum + micro, 0);
    const records = await ledger.records();
    expect(records.map((record) => record.reservationId).sort()).toEqual(
      held
        .slice(0, 20)
        .map((reservation) => reservation.id)
        .sort(),
    );
    await vi.waitFor(() => expect(ledger.spentUsd("cheap")).toBe(expectedMicro / 1e6));
    expect(ledger.reservedUsd("cheap")).toBe(0.15);

    // Another replica reading the same Redis sees the same books, and replaying again (or
    // settling again) books nothing twice.
    const peer = open("killed").store;
    const peerLedger = createSpendLedger({
      store: peer,
      budgetsUsd: { cheap: 10 },
      now: () => nowMs,
    });
    await peerLedger.ready();
    expect(peerLedger.spentUsd("cheap")).toBe(expectedMicro / 1e6);
    expect((await peerLedger.settle(held[14]!, 1, usage)).booked).toBe(false);
    await ledger.flush();
    expect(await ledger.records()).toHaveLength(20);

    const unhandled = consoleError.mock.calls.filter((call) =>
      String(call[0]).includes("Unhandled error event"),
    );
    expect(unhandled).toEqual([]);
    consoleError.mockRestore();
  }, 30_000);

  it("gives up on a Redis that stops answering after the command deadline, then catches up", async () => {
    const { store, warnings } = open("frozen");
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    await ledger.ready();
    const [first, second] = await reserveMany(ledger, 2, 0.1);
    server.pause();
    try {
      const reserve = await timed(
        ledger.reserve({
          rung: "cheap",
          connectionId: "openai",
          model: "gpt-4.1-mini",
          maxCostUsd: 0.1,
          requestId: "frozen",
        }),
      );
      expect(reserve.outcome).toMatchObject({ code: "store_unavailable" });
      expect(reserve.ms).toBeLessThan(answerWithinMs);
      expect(await ledger.settle(first!, 0.07, usage)).toMatchObject({ journaled: true });
      expect(warnings).toHaveLength(1);
    } finally {
      server.resume();
    }
    // The next command that gets through ends the outage and replays the journal.
    expect((await ledger.settle(second!, 0.03, usage)).booked).toBe(true);
    await vi.waitFor(() => expect(store.journalSize()).toBe(0), { timeout: 5000 });
    expect(warnings).toHaveLength(2);
    await vi.waitFor(() => expect(ledger.spentUsd("cheap")).toBe(0.1));
    expect(await ledger.records()).toHaveLength(2);
  }, 20_000);

  it("a dead replica's reservations expire after reservationTimeoutMs", async () => {
    let clock = nowMs;
    const dead = open("dead-replica").store;
    const deadLedger = createSpendLedger({
      store: dead,
      budgetsUsd: { cheap: 1 },
      now: () => clock,
      reservationTimeoutMs: 120_000,
    });
    await reserveMany(deadLedger, 1, 0.9);
    await dead.close();

    const { store } = open("dead-replica");
    const ledger = createSpendLedger({
      store,
      budgetsUsd: { cheap: 1 },
      now: () => clock,
      reservationTimeoutMs: 120_000,
    });
    await ledger.ready();
    const request = {
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.5,
      requestId: "survivor",
    };
    expect(isRefusal(await ledger.reserve(request))).toBe(true);
    clock += 120_000;
    expect(isRefusal(await ledger.reserve(request))).toBe(false);
  });
});
