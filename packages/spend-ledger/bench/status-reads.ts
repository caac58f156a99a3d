import { performance } from "node:perf_hooks";
import { printTable, quantile } from "@planfirst/bench";
import type { Redis } from "ioredis";
import {
  createSpendLedger,
  isRefusal,
  type SpendLedger,
  type SpendRecordQuery,
  type SpendStore,
} from "../src/index";

// The reads a gateway's status makes of the spend records, on a store that already holds a long
// history ending in a busy hour: the last hour (the page's prompt-cache reads, every second
// while it is watched) and one client key's spend in its month window. Each read is timed as `records()` (every record
// loaded, as the status did before) and as `summary()` (what it does now); on Redis the range
// commands behind the summaries are counted with their mean Redis time, since Redis serves every
// replica's budget scripts behind each one. SPEND_BENCH_HISTORY sets the records per store (default 200,000; memory keeps its newest
// 100,000).

/**
 * Records per store, one every 10 s from 20 November, then the last half of them (at most
 * 100,000) in one busy hour, a team's pace of about 28 requests a second.
 */
const HISTORY = Number(process.env.SPEND_BENCH_HISTORY ?? 200_000);
const BUSY_HOUR = Math.min(100_000, Math.floor(HISTORY / 2));
const START_MS = Date.UTC(2026, 10, 20);
const spacingMs = (index: number) => (index < HISTORY - BUSY_HOUR ? 10_000 : 3_600_000 / BUSY_HOUR);
const KEYS = 10;
const READS = 5;
const usage = {
  model: "gpt-4.1-mini",
  inputTokens: 1200,
  outputTokens: 300,
  cachedInputTokens: 900,
};

/** Books `HISTORY` requests through a month-window ledger on `store`; returns it at the end. */
async function seed(store: SpendStore): Promise<{ ledger: SpendLedger; nowMs: number }> {
  let clockMs = START_MS;
  const ledger = createSpendLedger({ store, window: "month", now: () => clockMs });
  await ledger.ready();
  let next = 0;
  const worker = async () => {
    while (next < HISTORY) {
      const index = next++;
      const reservation = await ledger.reserve({
        rung: index % 3 === 0 ? "premium" : "cheap",
        connectionId: index % 2 === 0 ? "openai" : "openrouter",
        model: usage.model,
        maxCostUsd: 0.01,
        requestId: `req-${index}`,
      });
      if (isRefusal(reservation)) throw new Error("the seed was refused");
      void ledger.settle(reservation, 0.002, { ...usage, clientKeyId: `key-${index % KEYS}` });
      clockMs += spacingMs(index);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  await ledger.flush();
  return { ledger, nowMs: clockMs };
}

/** Median ms of `READS` runs of `read`. */
async function medianMs(read: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < READS; run++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  return quantile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

/** ZRANGEBYSCORE commands Redis ran since the last reset, as "count × mean µs" (INFO commandstats). */
async function rangeCommands(admin: Redis): Promise<string> {
  const stats = await admin.info("commandstats");
  const match = /cmdstat_zrangebyscore:calls=(\d+),usec=(\d+)/.exec(stats);
  if (!match) return "-";
  return `${match[1]} × ${(Number(match[2]) / Number(match[1])).toFixed(0)}`;
}

/**
 * Seeds each store, then times its status reads; returns the function that prints their table.
 * `redisAdmin` (a plain connection to the same Redis) reads the server's command statistics for
 * the "redis" store.
 */
export async function benchStatusReads(
  stores: { name: string; store: SpendStore }[],
  redisAdmin: Redis,
): Promise<() => void> {
  const rows: string[][] = [];
  for (const { name, store } of stores) {
    const { ledger, nowMs } = await seed(store);
    const windowKey = ledger.currentWindowKey();
    const reads: [string, SpendRecordQuery][] = [
      ["the busy last hour", { sinceMs: nowMs - 3_600_000 }],
      [
        "one key, its month window",
        { sinceMs: Date.UTC(2026, 11, 1), clientKeyId: "key-3", windowKey },
      ],
    ];
    for (const [label, query] of reads) {
      const matching = (await ledger.summary(query)).total.requests;
      const recordsMs = await medianMs(() => ledger.records(query));
      if (name === "redis") await redisAdmin.config("RESETSTAT");
      const summaryMs = await medianMs(() => ledger.summary(query));
      const commands = name === "redis" ? await rangeCommands(redisAdmin) : "-";
      rows.push([
        name,
        label,
        matching.toLocaleString("en-US"),
        recordsMs.toFixed(1),
        summaryMs.toFixed(1),
        commands,
      ]);
    }
  }
  return () => {
    console.log(
      `\nStatus reads on ${HISTORY.toLocaleString("en-US")} records per store (memory keeps the newest 100,000), median of ${READS}\n`,
    );
    printTable(
      [
        "store",
        "read",
        "records matching",
        "records() ms",
        "summary() ms",
        "redis range commands × mean µs",
      ],
      rows,
    );
  };
}
