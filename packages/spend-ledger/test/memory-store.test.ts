import { describe, expect, it } from "vitest";
import {
  createMemorySpendStore,
  createSpendLedger,
  isRefusal,
  type SpendLedger,
  summarize,
} from "../src/index";
import { bookEndedWindow, FIRST_DAY_RECORDS } from "./prune-scenario";
import { describeSpendStoreContract } from "./store-contract";

describeSpendStoreContract("memory", () => {
  const store = createMemorySpendStore();
  return { store, openPeer: () => store };
});

const usage = { connectionId: "openai", model: "m", inputTokens: 10, outputTokens: 2 };

/** Reserves $0.01 on `cheap` and settles it at $0.001; the reservation. */
async function spendOnce(ledger: SpendLedger, index: number) {
  const reservation = await ledger.reserve({
    rung: "cheap",
    connectionId: "openai",
    model: "m",
    maxCostUsd: 0.01,
    requestId: `req-${index}`,
  });
  if (isRefusal(reservation)) throw new Error("refused");
  await ledger.settle(reservation, 0.001, usage);
  return reservation;
}

describe("the memory store's bounds", () => {
  it("returns the newest maxRecords records, while the window total keeps every cost", async () => {
    const ledger = createSpendLedger({ store: createMemorySpendStore({ maxRecords: 3 }) });
    for (let index = 0; index < 25; index++) await spendOnce(ledger, index);
    const records = await ledger.records();
    expect(records.map((record) => record.requestId)).toEqual(["req-22", "req-23", "req-24"]);
    expect(ledger.spentUsd("cheap")).toBe(0.025);
  });

  it("recognises a repeated settle among the latest rememberFinished ids", async () => {
    const ledger = createSpendLedger({ store: createMemorySpendStore({ rememberFinished: 4 }) });
    const reservations = [];
    for (let index = 0; index < 9; index++) reservations.push(await spendOnce(ledger, index));
    // The latest four finished ids, whichever generation holds them, are still known.
    for (const reservation of reservations.slice(-4)) {
      expect((await ledger.settle(reservation, 0.001, usage)).booked).toBe(false);
      expect((await ledger.release(reservation)).released).toBe(false);
    }
    expect(ledger.spentUsd("cheap")).toBe(0.009);
  });

  it("forgets, at a prune, the windows that ended before its cutoff and hold nothing live", async () => {
    const store = createMemorySpendStore();
    const { ledger, live, nowMs } = await bookEndedWindow(store);
    const cutoffMs = nowMs - 32 * 86_400_000;
    expect(ledger.spentUsd("cheap", live.windowKey)).toBeCloseTo(FIRST_DAY_RECORDS * 0.01, 9);
    expect(await store.prune!(cutoffMs)).toEqual({
      records: FIRST_DAY_RECORDS,
      // The ended window's records fall in two minutes: one series sum each.
      minuteSums: 2,
      finishedIds: 0,
      windows: 1,
    });
    expect(ledger.spentUsd("cheap", live.windowKey)).toBe(0);
    // The window holding a live reservation stays, and its settle books.
    expect(ledger.reservedUsd("other", live.windowKey)).toBe(0.5);
    expect((await ledger.settle(live, 0.3, usage)).booked).toBe(true);
    expect(await store.prune!(cutoffMs)).toMatchObject({ records: 0, windows: 1 });
    expect(ledger.spentUsd("other", live.windowKey)).toBe(0);
    expect(ledger.spentUsd("cheap")).toBeCloseTo(0.01, 9);
  });

  it("reads by time the same whether the clock only went forward or stepped back", async () => {
    // Settles at these minutes: forward only, then with the clock stepping back twice.
    const forward = [0, 1, 1, 2, 3, 5, 8, 13];
    const stepping = [0, 1, 5, 2, 3, 13, 1, 8];
    const read = async (minutes: number[]) => {
      let nowMs = Date.UTC(2026, 11, 4);
      const start = nowMs;
      const ledger = createSpendLedger({
        store: createMemorySpendStore({ maxRecords: 6, rememberFinished: 100 }),
        now: () => nowMs,
      });
      for (const [index, minute] of minutes.entries()) {
        nowMs = start + minute * 60_000;
        await spendOnce(ledger, minute * 100 + index);
      }
      const at = (minute: number) => start + minute * 60_000;
      return {
        all: (await ledger.records()).map((record) => record.time),
        middle: (await ledger.records({ sinceMs: at(2), untilMs: at(8) })).map((r) => r.time),
        summed: (await ledger.summary({ sinceMs: at(1) })).total.requests,
      };
    };
    const minutesOf = (times: string[]) =>
      times.map((time) => (Date.parse(time) - Date.UTC(2026, 11, 4)) / 60_000);
    const inOrder = await read(forward);
    expect(minutesOf(inOrder.all)).toEqual([1, 2, 3, 5, 8, 13]);
    expect(minutesOf(inOrder.middle)).toEqual([2, 3, 5]);
    expect(inOrder.summed).toBe(6);
    // The newest six kept are the last six settled, listed in time order.
    const stepped = await read(stepping);
    expect(minutesOf(stepped.all)).toEqual([1, 2, 3, 5, 8, 13]);
    expect(minutesOf(stepped.middle)).toEqual([2, 3, 5]);
    expect(stepped.summed).toBe(6);
  });

  it("sums from its minute sums exactly the records reads see: past maxRecords, with the clock stepping back, after a prune", async () => {
    const start = Date.UTC(2026, 11, 4);
    let nowMs = start;
    const store = createMemorySpendStore({ maxRecords: 7, rememberFinished: 100 });
    const ledger = createSpendLedger({ store, now: () => nowMs });
    // 30 settles 20 s apart on two rungs and three keys, the clock stepping back twice.
    for (let index = 0; index < 30; index++) {
      nowMs = start + index * 20_000 - (index === 11 || index === 23 ? 150_000 : 0);
      const reservation = await ledger.reserve({
        rung: index % 3 === 0 ? "premium" : "cheap",
        connectionId: "openai",
        model: "m",
        maxCostUsd: 0.01,
        requestId: `req-${index}`,
      });
      if (isRefusal(reservation)) throw new Error("refused");
      await ledger.settle(reservation, 0.001 * (index + 1), {
        ...usage,
        clientKeyId: [null, "alice", "bob"][index % 3] ?? null,
      });
    }
    const agrees = async () => {
      for (let since = -1; since <= 12; since++) {
        for (const until of [undefined, since + 1, since + 3, since + 20]) {
          for (const extra of [
            {},
            { rung: "cheap" },
            { clientKeyId: "alice" },
            { clientKeyId: "bob" },
          ]) {
            const query = {
              ...(since < 0 ? {} : { sinceMs: start + since * 30_000 }),
              ...(until === undefined ? {} : { untilMs: start + until * 30_000 }),
              ...extra,
            };
            expect(await ledger.summary(query), JSON.stringify(query)).toEqual(
              summarize(await ledger.records(query)),
            );
          }
        }
      }
    };
    await agrees();
    await store.prune!(start + 8 * 60_000);
    await agrees();
    expect((await ledger.summary({})).total.requests).toBe((await ledger.records({})).length);
  });

  it("keeps apart in its minute sums series whose names run together", async () => {
    const start = Date.UTC(2026, 11, 4);
    const ledger = createSpendLedger({ store: createMemorySpendStore(), now: () => start });
    const names = [
      ["a", "bc"],
      ["ab", "c"],
      ["1:a", "c"],
    ] as const;
    for (const [index, [connectionId, model]] of names.entries()) {
      const reservation = await ledger.reserve({
        rung: "cheap",
        connectionId,
        model,
        maxCostUsd: 0.01,
        requestId: `req-${index}`,
      });
      if (isRefusal(reservation)) throw new Error("refused");
      await ledger.settle(reservation, 0.001, { ...usage, connectionId, model });
    }
    // A whole minute, read from the sums alone.
    const query = { sinceMs: start, untilMs: start + 60_000 };
    const summary = await ledger.summary(query);
    expect(Object.keys(summary.byConnection).sort()).toEqual(["1:a", "a", "ab"]);
    expect(summary).toEqual(summarize(await ledger.records(query)));
  });

  it("refuses bounds that are not positive integers, naming them", () => {
    expect(() => createMemorySpendStore({ maxRecords: 0 })).toThrow(/maxRecords must be/);
    expect(() => createMemorySpendStore({ rememberFinished: 1.5 })).toThrow(
      /rememberFinished must be/,
    );
  });
});
