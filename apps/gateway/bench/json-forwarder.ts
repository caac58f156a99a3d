import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSpendLedger,
  isRefusal,
  type Reservation,
  type SpendLedger,
} from "@planfirst/spend-ledger";
import { createRedisSpendStore } from "@planfirst/spend-ledger/redis";
import { createSqliteSpendStore } from "@planfirst/spend-ledger/sqlite";
import { type Dispatcher, Pool } from "undici";
import { BENCH_REDIS_URL, deleteBenchKeys } from "./bench-redis";
import { listenOnLoopback } from "./listen-loopback";

/** The spend stores the forwarder can book on: the gateway's SQLite default, or Redis. */
export const FORWARDER_LEDGERS = ["sqlite", "redis"] as const;
/** One of {@link FORWARDER_LEDGERS}. */
export type ForwarderLedger = (typeof FORWARDER_LEDGERS)[number];

/** Forwarders started in this process: each keeps its Redis keys under a prefix of its own. */
let forwardersStarted = 0;

/**
 * A reference beside the raw proxy: the least a gateway that reads what it forwards must do,
 * and nothing else. It parses the client's JSON body, names the upstream's model, sends it on
 * undici (the gateway's HTTP client, no cap on its sockets), and answers with the upstream's
 * JSON parsed and serialised again (a stream's chunks are relayed as they arrive). With
 * `ledger`, each request also reserves a fixed worst case on planfirst's own spend ledger on that
 * store, opened as the gateway opens it (a SQLite file, where the reservation is durable before
 * the upstream call; or Redis at REDIS_URL with a journal file, where Redis has admitted it by
 * then), and settles after answering, without waiting for that to land. No validation,
 * routing, sessions, logs or metrics: the distance from this to a gateway row is the gateway's
 * own work per request; from the raw proxy to this, what reading JSON and undici cost (and with
 * `ledger`, the ledger on that store).
 */
export async function startJsonForwarder(
  target: URL,
  options: { ledger: ForwarderLedger | null },
): Promise<{
  url: string;
  /** The ledger the forwarder books on (null without `ledger`), to check what it booked. */
  ledger: SpendLedger | null;
  close(): Promise<void>;
}> {
  const pool = new Pool(target.origin);
  const path = `${target.pathname.replace(/\/$/, "")}/chat/completions`;
  const dir = options.ledger ? mkdtempSync(join(tmpdir(), "planfirst-bench-forwarder-")) : null;
  const keyPrefix = `planfirst-bench-forwarder-${process.pid}-${++forwardersStarted}:`;
  const store = !dir
    ? null
    : options.ledger === "redis"
      ? createRedisSpendStore({
          url: BENCH_REDIS_URL,
          keyPrefix: `${keyPrefix}spend`,
          journalPath: join(dir, "journal.db"),
        })
      : createSqliteSpendStore({ path: join(dir, "state.db") });
  await store?.ready();
  // A budget far above what a run spends, as on the benchmark gateways: nothing is refused.
  const ledger = store ? createSpendLedger({ store, budgetsUsd: { cheap: 1_000_000 } }) : null;
  let requests = 0;

  const reserve = async (requestId: string): Promise<Reservation | null> => {
    if (!ledger) return null;
    const held = await ledger.reserve({
      rung: "cheap",
      connectionId: "forwarder",
      model: "bench-model",
      maxCostUsd: 0.001,
      requestId,
    });
    if (isRefusal(held)) throw new Error(`the forwarder's ledger refused: ${held.reason}`);
    return held;
  };
  const settle = (held: Reservation | null) => {
    if (!ledger || !held) return;
    ledger
      .settle(held, 0.0001, { model: "bench-model", inputTokens: 12, outputTokens: 1 })
      .catch((error: unknown) => console.error("forwarder settle failed", error));
  };
  // No answer from the upstream: nothing was spent, the hold goes back at once.
  const release = (held: Reservation | null) => {
    if (!ledger || !held) return;
    ledger
      .release(held)
      .catch((error: unknown) => console.error("forwarder release failed", error));
  };

  const forward = async (body: string, res: http.ServerResponse) => {
    const request = JSON.parse(body) as { model?: string; stream?: boolean };
    request.model = "bench-model";
    const held = await reserve(`forwarder-${++requests}`);
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await pool.request({
        path,
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer bench" },
        body: JSON.stringify(request),
      });
    } catch (error) {
      release(held);
      throw error;
    }
    // The upstream answered: its use is booked however the body ends, as on the gateway.
    try {
      if (request.stream) {
        res.writeHead(upstream.statusCode, { "content-type": "text/event-stream" });
        for await (const chunk of upstream.body) res.write(chunk);
        res.end();
      } else {
        const answer = JSON.stringify(JSON.parse(await upstream.body.text()));
        res.writeHead(upstream.statusCode, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(answer),
        });
        res.end(answer);
      }
    } finally {
      settle(held);
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      forward(Buffer.concat(chunks).toString("utf8"), res).catch(() => res.destroy());
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    ledger,
    async close() {
      server.close();
      await pool.close();
      await store?.close();
      if (options.ledger === "redis") await deleteBenchKeys(keyPrefix);
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
