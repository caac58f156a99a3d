import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { BatchOperation } from "../src/redis-batch";
import { batchScript, encodeOperations, encodeSettleRecord } from "../src/redis-scripts";
import { redisUrl, uniquePrefix } from "./redis-url";

// The batch script against a model of what each operation does alone, applied in order: any
// batch of reserves, settles, releases and refreshes, at clocks that let reservations expire in
// the middle of a batch, must give the same flags, totals, earliest expiry and stored state.

const prefix = uniquePrefix("redis-script");
const startMs = Date.UTC(2026, 11, 3, 9);

type Step =
  | { kind: "r"; id: number; amount: number; budget: number | null; at: number; lifetime: number }
  | { kind: "s"; id: number; cost: number; at: number }
  | { kind: "l"; id: number; at: number }
  | { kind: "x"; at: number };

/** The state of one window as the script's operations define it, one operation at a time. */
class WindowModel {
  spent = 0;
  seq = 0;
  readonly live = new Map<string, { amount: number; expiresAtMs: number }>();
  readonly finished = new Set<string>();

  reserved(): number {
    let sum = 0;
    for (const { amount } of this.live.values()) sum += amount;
    return sum;
  }

  nextExpiry(): string {
    let earliest = Number.POSITIVE_INFINITY;
    for (const { expiresAtMs } of this.live.values()) earliest = Math.min(earliest, expiresAtMs);
    return earliest === Number.POSITIVE_INFINITY ? "" : String(earliest);
  }

  /** Drops what expired by `nowMs`; true when anything did. */
  private sweep(nowMs: number): boolean {
    let swept = false;
    for (const [id, { expiresAtMs }] of this.live) {
      if (expiresAtMs <= nowMs) {
        this.live.delete(id);
        swept = true;
      }
    }
    return swept;
  }

  /** Applies one operation: its flag, and whether the window changed. */
  apply(step: Step, nowMs: number): { flag: number; changed: boolean } {
    const changed = this.sweep(nowMs);
    if (step.kind === "x") return { flag: 0, changed };
    const id = `id-${step.id}`;
    if (step.kind === "r") {
      const known = this.live.has(id) ? 1 : 0;
      if (this.finished.has(id)) return { flag: known, changed };
      if (step.budget !== null && this.spent + this.reserved() + step.amount > step.budget) {
        return { flag: known, changed };
      }
      if (known) return { flag: 1, changed };
      this.live.set(id, { amount: step.amount, expiresAtMs: nowMs + step.lifetime });
      return { flag: 1, changed: true };
    }
    if (this.finished.has(id)) return { flag: 0, changed };
    this.finished.add(id);
    const wasLive = this.live.delete(id);
    if (step.kind === "s") {
      this.spent += step.cost;
      return { flag: 1, changed: true };
    }
    return { flag: wasLive ? 1 : 0, changed: changed || wasLive };
  }
}

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("r" as const),
    id: fc.nat(7),
    amount: fc.integer({ min: 0, max: 400 }),
    budget: fc.option(fc.integer({ min: 0, max: 1_500 }), { nil: null }),
    at: fc.nat(40),
    lifetime: fc.integer({ min: 1, max: 60 }),
  }),
  fc.record({
    kind: fc.constant("s" as const),
    id: fc.nat(7),
    cost: fc.integer({ min: 0, max: 500 }),
    at: fc.nat(40),
  }),
  fc.record({ kind: fc.constant("l" as const), id: fc.nat(7), at: fc.nat(40) }),
  fc.record({ kind: fc.constant("x" as const), at: fc.nat(40) }),
);

type Reply = [number[], string, string, string, number];

describe("redis batch script", () => {
  const client = new Redis(redisUrl);
  client.defineCommand("spendBatch", { numberOfKeys: 8, lua: batchScript });
  const run = (keys: string[], operations: string) =>
    (client as unknown as Record<string, (...args: string[]) => Promise<Reply>>).spendBatch!(
      ...keys,
      "",
      '["cheap","day"]',
      "0",
      operations,
    );
  afterAll(async () => {
    const keys = await client.keys(`{${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  });

  it("gives what the operations give one at a time, in order, for any batches", async () => {
    let window = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 5 }),
        async (batches) => {
          window += 1;
          const base = `{${prefix}}:${window}`;
          // The script's eight keys, in its order; the last four are shared by every window.
          const keys = [
            base,
            `${base}:live`,
            `${base}:amounts`,
            `${base}:done`,
            `{${prefix}}:windows`,
            `{${prefix}}:records`,
            `{${prefix}}:minutes`,
            `{${prefix}}:minutes:fields`,
          ];
          const model = new WindowModel();
          // Clocks never go back from one batch to the next; within a batch each operation
          // has its own (a call carries several turns' operations).
          let clockMs = startMs;
          for (const batch of batches) {
            const timed = batch.map((entry) => ({ entry, nowMs: clockMs + entry.at }));
            clockMs += 40;
            let changed = false;
            const flags = timed.map(({ entry, nowMs }) => {
              const outcome = model.apply(entry, nowMs);
              changed ||= outcome.changed;
              return outcome.flag;
            });
            if (changed) model.seq += 1;
            const encoded = encodeOperations(
              timed.map(({ entry, nowMs }) => ({
                kind: entry.kind,
                nowMs,
                args: argsOf(entry, nowMs),
              })),
            );
            const [gotFlags, spent, reserved, expiry, seq] = await run(keys, encoded);
            expect(gotFlags.map(Number)).toEqual(flags);
            expect([spent, reserved, expiry, Number(seq)]).toEqual([
              String(model.spent),
              String(model.reserved()),
              model.nextExpiry(),
              model.seq,
            ]);
          }
          // What is stored is what the model holds, so the next call of any replica sees it.
          const [hash, amounts, done] = await Promise.all([
            client.hmget(keys[0]!, "spent", "reserved", "seq"),
            client.hgetall(keys[2]!),
            client.smembers(keys[3]!),
          ]);
          const live = await client.zrange(keys[1]!, 0, -1, "WITHSCORES");
          // An absent field is a zero (a window that never changed has no hash).
          expect(hash.map((field) => field ?? "0")).toEqual(
            [model.spent, model.reserved(), model.seq].map(String),
          );
          const liveModel = [...model.live];
          expect(amounts).toEqual(
            Object.fromEntries(liveModel.map(([id, { amount }]) => [id, String(amount)])),
          );
          expect(new Map(pairs(live))).toEqual(
            new Map(liveModel.map(([id, { expiresAtMs }]) => [id, String(expiresAtMs)])),
          );
          expect(new Set(done)).toEqual(model.finished);
          // The minute sums are the sums of the records booked, every window's so far.
          const records = pairs(await client.zrange(keys[5]!, 0, -1, "WITHSCORES"));
          const { from, ...sums } = await client.hgetall(keys[6]!);
          expect(sums).toEqual(minuteSumsOf(records));
          const fields = pairs(await client.zrange(keys[7]!, 0, -1, "WITHSCORES"));
          expect(new Map(fields)).toEqual(
            new Map(Object.keys(sums).map((field) => [field, field.split("\n")[0]])),
          );
          // The sums begin the minute after the first record's.
          const first = Math.min(...records.map(([, score]) => Number(score)));
          expect(Number(from)).toBe(first - (first % 60_000) + 60_000);
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** What the minute sums hold for `records` ([JSON, time] pairs), as the script writes them. */
function minuteSumsOf(records: [string, string][]): Record<string, string> {
  const sums = new Map<string, number[]>();
  for (const [json, time] of records) {
    const record = JSON.parse(json);
    const minute = Number(time) - (Number(time) % 60_000);
    const series = [record.windowKey, record.rung, record.connectionId, record.model];
    const field = `${minute}\n${JSON.stringify([...series, record.clientKeyId])}`;
    const add = [
      1,
      record.costMicroUsd,
      record.inputTokens,
      record.outputTokens,
      record.cachedInputTokens,
      record.cacheWriteTokens,
    ];
    const sum = sums.get(field) ?? [0, 0, 0, 0, 0, 0];
    sums.set(
      field,
      sum.map((value, index) => value + add[index]!),
    );
  }
  return Object.fromEntries([...sums].map(([field, sum]) => [field, sum.join(" ")]));
}

/** A step's four script arguments, as the store sends them (see redis-scripts.ts). */
function argsOf(entry: Step, nowMs: number): BatchOperation["args"] {
  switch (entry.kind) {
    case "r": {
      const budget = entry.budget === null ? "" : String(entry.budget);
      return [`id-${entry.id}`, String(entry.amount), budget, nowMs + entry.lifetime];
    }
    case "s":
      // A record as the store books it.
      return [
        `id-${entry.id}`,
        String(entry.cost),
        nowMs,
        encodeSettleRecord({
          time: new Date(nowMs).toISOString(),
          windowKey: "day",
          rung: "cheap",
          connectionId: entry.id % 2 === 0 ? "openai" : "open/router",
          model: "gpt-4.1-mini",
          inputTokens: 1000 + entry.id,
          outputTokens: 10 * entry.cost,
          cachedInputTokens: entry.id,
          cacheWriteTokens: entry.cost % 7,
          costMicroUsd: entry.cost,
          costUsd: entry.cost / 1_000_000,
          reservedMicroUsd: entry.cost,
          clientKeyId: entry.id % 3 === 0 ? null : `key-${entry.id % 3}`,
          requestId: `request-${entry.id}`,
          reservationId: `id-${entry.id}`,
        }),
      ];
    case "l":
      return [`id-${entry.id}`, "", "", ""];
    case "x":
      return ["", "", "", ""];
  }
}

/** A WITHSCORES reply as [member, score] pairs. */
function pairs(flat: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let index = 0; index < flat.length; index += 2)
    result.push([flat[index]!, flat[index + 1]!]);
  return result;
}
