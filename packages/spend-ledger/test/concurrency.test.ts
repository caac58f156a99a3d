import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  createSpendLedger,
  type Reservation,
  type SpendLedger,
  type SpendStore,
} from "../src/index";
import { createRedisSpendStore } from "../src/redis";
import { createSqliteSpendStore } from "../src/sqlite";
import { redisUrl, uniquePrefix } from "./redis-url";
import { makeTempDir } from "./temp-dir";

const budgetMicro = 1_000_000;
const requests = 500;

/** Deterministic pseudo-random costs between $0.001 and $0.01 (demand ≈ $2.75 for $1.00). */
function costsMicro(seed: number): number[] {
  let state = seed;
  return Array.from({ length: requests }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return 1_000 + (state % 9_001);
  });
}

async function raceForOneDollar(stores: [SpendStore, SpendStore]) {
  const nowMs = Date.UTC(2026, 10, 30, 12);
  const ledgers = stores.map((store) =>
    createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs }),
  ) as [SpendLedger, SpendLedger];
  await Promise.all(ledgers.map((ledger) => ledger.ready()));
  const costs = costsMicro(42);
  const results = await Promise.all(
    costs.map((micro, index) =>
      ledgers[index % 2]!.reserve({
        rung: "cheap",
        connectionId: "openai",
        model: "gpt-4.1-mini",
        maxCostUsd: micro / 1e6,
        requestId: `race-${index}`,
      }),
    ),
  );
  const admitted = results.filter((r): r is Reservation => !("refused" in r));
  const admittedMicro = admitted.reduce((sum, r) => sum + r.amountMicroUsd, 0);

  // Settle every admitted request at 60–100 % of its worst case, from the other instance.
  const actualMicro = admitted.map((r, i) =>
    Math.floor((r.amountMicroUsd * (60 + (i % 41))) / 100),
  );
  await Promise.all(
    admitted.map((reservation, index) =>
      ledgers[(index + 1) % 2]!.settle(reservation, actualMicro[index]! / 1e6, {
        model: "gpt-4.1-mini",
        inputTokens: 1000,
        outputTokens: 100,
      }),
    ),
  );
  return { ledgers, admitted, admittedMicro, actualMicro, maxCostMicro: Math.max(...costs) };
}

/**
 * 500 concurrent reservations of one key with a $0.05 key budget, on a rung with $1.00, from two
 * ledger instances, while another key reserves 20 requests; every admitted request settles at
 * its worst case. Returns what each key was admitted and booked, in micro-USD.
 */
async function raceOneKey(stores: [SpendStore, SpendStore]) {
  const nowMs = Date.UTC(2026, 10, 30, 12);
  const ledgers = stores.map((store) =>
    createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs }),
  ) as [SpendLedger, SpendLedger];
  await Promise.all(ledgers.map((ledger) => ledger.ready()));
  const alice = { scope: "key:alice", budgetUsd: 0.05, window: "month" as const };
  const bob = { scope: "key:bob", budgetUsd: 0.5 };
  const reserve = (index: number, micro: number, scope: typeof alice | typeof bob) =>
    ledgers[index % 2]!.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: micro / 1e6,
      requestId: `${scope.scope}-${index}`,
      scopes: [scope],
    });
  const costs = costsMicro(7);
  const [aliceResults, bobResults] = await Promise.all([
    Promise.all(costs.map((micro, index) => reserve(index, micro, alice))),
    Promise.all(Array.from({ length: 20 }, (_, index) => reserve(index, 10_000, bob))),
  ]);
  const settleAll = (results: Array<Reservation | { refused: true }>) => {
    const admitted = results.filter((r): r is Reservation => !("refused" in r));
    return Promise.all(
      admitted.map((reservation, index) =>
        ledgers[(index + 1) % 2]!.settle(reservation, reservation.amountMicroUsd / 1e6, {
          model: "gpt-4.1-mini",
          inputTokens: 1000,
          outputTokens: 100,
        }),
      ),
    ).then(() => ({
      count: admitted.length,
      micro: admitted.reduce((sum, r) => sum + r.amountMicroUsd, 0),
    }));
  };
  const [aliceBooked, bobBooked] = await Promise.all([
    settleAll(aliceResults),
    settleAll(bobResults),
  ]);
  return {
    ledgers,
    aliceMicro: aliceBooked.micro,
    bobResults,
    bobMicro: bobBooked.micro,
    requestsBooked: aliceBooked.count + bobBooked.count,
    maxCostMicro: Math.max(...costs),
  };
}

describe("500 concurrent reservations of one key with a $0.05 key budget", () => {
  const temp = makeTempDir();
  const prefix = uniquePrefix("key-scope");
  const admin = new Redis(redisUrl);

  afterAll(async () => {
    temp.remove();
    const keys = await admin.keys(`{${prefix}}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it.each([
    [
      "two Redis stores",
      (): [SpendStore, SpendStore] => [
        createRedisSpendStore({ url: redisUrl, keyPrefix: prefix }),
        createRedisSpendStore({ url: redisUrl, keyPrefix: prefix }),
      ],
    ],
    [
      "two SQLite handles on one file",
      (): [SpendStore, SpendStore] => {
        const path = join(temp.dir, "key-race.db");
        return [createSqliteSpendStore({ path }), createSqliteSpendStore({ path })];
      },
    ],
  ] as const)(
    "%s: the key never books past $0.05 and another key is not affected",
    async (_, open) => {
      const stores = open();
      const { ledgers, aliceMicro, bobResults, bobMicro, requestsBooked, maxCostMicro } =
        await raceOneKey(stores);
      expect(aliceMicro).toBeLessThanOrEqual(50_000);
      expect(aliceMicro).toBeGreaterThan(50_000 - maxCostMicro);
      expect(bobResults.every((result) => !("refused" in result))).toBe(true);
      expect(bobMicro).toBe(200_000);
      for (const ledger of ledgers) {
        await vi.waitFor(
          () => {
            expect(ledger.spentUsd("key:alice", ledger.currentWindowKey("month"))).toBe(
              aliceMicro / 1e6,
            );
            expect(ledger.spentUsd("cheap")).toBe((aliceMicro + bobMicro) / 1e6);
          },
          { timeout: 3000 },
        );
      }
      // One record per request: the key's share of each settle keeps none.
      expect(await ledgers[0].records()).toHaveLength(requestsBooked);
      await Promise.all(stores.map((store) => store.close()));
    },
  );
});

describe("500 concurrent reservations against a $1.00 budget", () => {
  const temp = makeTempDir();
  const prefix = uniquePrefix("concurrency");
  const admin = new Redis(redisUrl);

  afterAll(async () => {
    temp.remove();
    const keys = await admin.keys(`{${prefix}}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it("B6 two ledger instances on one Redis never admit more than $1.00", async () => {
    const stores: [SpendStore, SpendStore] = [
      createRedisSpendStore({ url: redisUrl, keyPrefix: prefix }),
      createRedisSpendStore({ url: redisUrl, keyPrefix: prefix }),
    ];
    const { ledgers, admitted, admittedMicro, actualMicro, maxCostMicro } =
      await raceForOneDollar(stores);
    expect(admittedMicro).toBeLessThanOrEqual(budgetMicro);
    // Every refusal saw less than its own cost left, and commitments only grew: the budget was used.
    expect(admittedMicro).toBeGreaterThan(budgetMicro - maxCostMicro);
    expect(admitted.length).toBeLessThan(requests);
    const spentMicro = actualMicro.reduce((sum, micro) => sum + micro, 0);
    expect(spentMicro).toBeLessThanOrEqual(budgetMicro);
    for (const ledger of ledgers) {
      await vi.waitFor(() => expect(ledger.spentUsd("cheap")).toBe(spentMicro / 1e6), {
        timeout: 3000,
      });
      expect(ledger.reservedUsd("cheap")).toBe(0);
    }
    expect(await ledgers[0].records()).toHaveLength(admitted.length);
    await Promise.all(stores.map((store) => store.close()));
  });

  it("B6 two SQLite handles on one file never admit more than $1.00", async () => {
    const path = join(temp.dir, "race.db");
    const stores: [SpendStore, SpendStore] = [
      createSqliteSpendStore({ path }),
      createSqliteSpendStore({ path }),
    ];
    const { ledgers, admitted, admittedMicro, actualMicro, maxCostMicro } =
      await raceForOneDollar(stores);
    expect(admittedMicro).toBeLessThanOrEqual(budgetMicro);
    expect(admittedMicro).toBeGreaterThan(budgetMicro - maxCostMicro);
    const spentMicro = actualMicro.reduce((sum, micro) => sum + micro, 0);
    expect(spentMicro).toBeLessThanOrEqual(budgetMicro);
    for (const ledger of ledgers) expect(ledger.spentUsd("cheap")).toBe(spentMicro / 1e6);
    expect(await ledgers[1].records()).toHaveLength(admitted.length);
    await Promise.all(stores.map((store) => store.close()));
  });
});
