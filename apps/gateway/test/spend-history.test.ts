import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRefusal } from "@planfirst/spend-ledger";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config";
import type { GatewayConfigInput } from "../src/config/schema";
import {
  createClock,
  deleteRedisKeys,
  type Harness,
  ledgerOf,
  redisStorage,
  startHarness,
  waitFor,
} from "./harness";

const DAY_MS = 86_400_000;
const usage = { model: "deepseek-chat", inputTokens: 10, outputTokens: 5 };

/** Books one request of `usd` on the cheap rung through the gateway's own ledger. */
async function bookOne(harness: Harness, usd: number): Promise<void> {
  const ledger = ledgerOf(harness);
  const reservation = await ledger.reserve({
    rung: "cheap",
    connectionId: "deepseek",
    model: "deepseek-chat",
    maxCostUsd: usd,
    requestId: `history-${usd}-${harness.clock.now()}`,
  });
  if (isRefusal(reservation)) throw new Error("refused");
  await ledger.settle(reservation, usd, usage);
}

describe("storage.spendMaxAgeDays", () => {
  it("defaults to 90 days and refuses less than a month's window, naming the setting", () => {
    expect(parseConfig({}).storage.spendMaxAgeDays).toBe(90);
    expect(() => parseConfig({ storage: { spendMaxAgeDays: 31 } })).toThrow(
      expect.objectContaining({
        problems: [
          expect.objectContaining({
            path: "storage.spendMaxAgeDays",
            message: expect.stringContaining("at least 32"),
          }),
        ],
      }),
    );
  });

  const folder = mkdtempSync(join(tmpdir(), "planfirst-spend-history-"));
  const redis = redisStorage();
  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await deleteRedisKeys(redis.keyPrefix);
  });
  const drivers: [string, GatewayConfigInput["storage"]][] = [
    ["SQLite", { driver: "sqlite", path: join(folder, "state.db") }],
    ["Redis", redis],
  ];

  it.each(drivers)(
    "a gateway on %s removes the spend history past the limit at start, and keeps today's",
    async (_name, storage) => {
      const clock = createClock();
      const before = await startHarness({ config: {}, storage, clock });
      try {
        await bookOne(before, 0.25);
        await bookOne(before, 0.5);
      } finally {
        await before.close();
      }

      clock.advance(100 * DAY_MS);
      const after = await startHarness({ config: {}, storage, clock });
      try {
        await after.server.gateway.ready();
        await bookOne(after, 0.125);
        await waitFor(() => after.logs.some((line) => line.includes("spend history older")), {
          what: "the start-up prune",
        });
        const line = JSON.parse(after.logs.find((entry) => entry.includes("spend history older"))!);
        expect(line.pruned).toMatchObject({ records: 2, windows: 1 });
        const ledger = ledgerOf(after);
        expect((await ledger.records()).map((record) => record.costMicroUsd)).toEqual([125_000]);
        expect(ledger.spentUsd("cheap")).toBeCloseTo(0.125, 9);
      } finally {
        await after.close();
      }
    },
  );
});
