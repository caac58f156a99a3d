import { createMemorySpendStore, createSpendLedger, isRefusal } from "@planfirst/spend-ledger";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startSpendHistoryPruning } from "./spend-history";

const DAY_MS = 86_400_000;

describe("startSpendHistoryPruning", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("prunes at start and then every hour, logs what went, and stops when asked", async () => {
    vi.useFakeTimers();
    let nowMs = Date.parse("2026-11-30T10:00:00Z");
    const store = createMemorySpendStore();
    const ledger = createSpendLedger({ store, now: () => nowMs });
    const reservation = await ledger.reserve({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd: 0.1,
      requestId: "old",
    });
    if (isRefusal(reservation)) throw new Error("refused");
    await ledger.settle(reservation, 0.1, {
      model: "deepseek-chat",
      inputTokens: 1,
      outputTokens: 1,
    });

    const lines: { pruned?: { records: number }; msg: string }[] = [];
    const logger = {
      info: (fields: object, msg: string) => void lines.push({ ...fields, msg }),
      warn: (fields: object, msg: string) => void lines.push({ ...fields, msg }),
    };
    const pruning = startSpendHistoryPruning({ store, maxAgeDays: 90, now: () => nowMs, logger });
    await vi.advanceTimersByTimeAsync(0);
    // At start the record is a few minutes old: nothing goes, nothing is logged.
    expect(lines).toEqual([]);

    nowMs += 100 * DAY_MS;
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: "spend history older than its age limit removed",
        pruned: expect.objectContaining({ records: 1 }),
      }),
    ]);
    expect(await ledger.records()).toEqual([]);

    await pruning.stop();
    const prune = vi.spyOn(store, "prune");
    await vi.advanceTimersByTimeAsync(3 * 3_600_000);
    expect(prune).not.toHaveBeenCalled();
  });
});
