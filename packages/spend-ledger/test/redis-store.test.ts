import { Redis } from "ioredis";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createSpendLedger } from "../src/index";
import { createRedisSpendStore } from "../src/redis";
import { redisUrl, uniquePrefix } from "./redis-url";
import { describeSpendStoreContract } from "./store-contract";

const filePrefix = uniquePrefix("redis-store");
let storeCount = 0;

describeSpendStoreContract("redis", () => {
  storeCount += 1;
  const keyPrefix = `${filePrefix}:${storeCount}`;
  return {
    store: createRedisSpendStore({ url: redisUrl, keyPrefix }),
    openPeer: () => createRedisSpendStore({ url: redisUrl, keyPrefix }),
  };
});

describe("redis spend store", () => {
  const admin = new Redis(redisUrl);
  afterAll(async () => {
    const keys = await admin.keys(`{${filePrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it("answers null (unknown, B3) before ready() and the mirror after it", async () => {
    const keyPrefix = `${filePrefix}:mirror`;
    const nowMs = Date.UTC(2026, 10, 30, 9);
    const writer = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const writerLedger = createSpendLedger({
      store: writer,
      budgetsUsd: { cheap: 2 },
      now: () => nowMs,
    });
    const reservation = await writerLedger.reserve({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd: 0.75,
      requestId: "r1",
    });
    if ("refused" in reservation) throw new Error("refused");
    await writerLedger.settle(reservation, 0.5, {
      model: "deepseek-chat",
      inputTokens: 1,
      outputTokens: 1,
    });

    const late = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const lateLedger = createSpendLedger({
      store: late,
      budgetsUsd: { cheap: 2 },
      now: () => nowMs,
    });
    expect(lateLedger.rungSpendUsd("cheap")).toBeNull();
    expect(lateLedger.isExhausted("cheap")).toBe(false);
    await lateLedger.ready();
    expect(lateLedger.spentUsd("cheap")).toBe(0.5);
    expect(lateLedger.rungSpendUsd("cheap")).toBe(0.5);

    await writerLedger.reserve({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd: 1.5,
      requestId: "r2",
    });
    await vi.waitFor(() => expect(lateLedger.isExhausted("cheap")).toBe(true), { timeout: 2000 });
    await writer.close();
    await late.close();
  });

  it("uses a caller's client without quitting it", async () => {
    const client = new Redis(redisUrl);
    const store = createRedisSpendStore({ client, keyPrefix: `${filePrefix}:own-client` });
    await store.ready();
    await store.close();
    expect(await client.ping()).toBe("PONG");
    await client.quit();
  });
});
