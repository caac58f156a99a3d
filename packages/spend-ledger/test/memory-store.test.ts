import { describe, expect, it } from "vitest";
import {
  createMemorySpendStore,
  createSpendLedger,
  isRefusal,
  type SpendLedger,
} from "../src/index";
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

  it("refuses bounds that are not positive integers, naming them", () => {
    expect(() => createMemorySpendStore({ maxRecords: 0 })).toThrow(/maxRecords must be/);
    expect(() => createMemorySpendStore({ rememberFinished: 1.5 })).toThrow(
      /rememberFinished must be/,
    );
  });
});
