import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { printTable } from "@planfirst/bench";
import { Pool } from "undici";
import { createUpstreamClient, type UpstreamClient } from "../src/upstream";
import type { ChildReport } from "./child";

// The gateway's `UpstreamClient` (on undici 7) doing its job: POST a serialised body, wait for
// the headers within a header timeout, read the body within an idle (body) timeout. Beside it,
// the same job on undici 7's bare `Pool` (undici's own request API: a `Readable` body per
// response, undici's timers) and as a bare node:http request loop with a keep-alive Agent (the
// floor reference: the node:http client the gateway used to have was built on it). All run in this
// process as closed loops (`CONNECTIONS` calls in flight) against the instant upstream in its own
// process, taking turns (A B C A B C) so drifting machine load hits all alike. Alone (no gateways):
//   cd apps/gateway && npx tsx --conditions=@planfirst/source bench/upstream-clients.ts [seconds]

const CONNECTIONS = 32;
const ROUNDS = 2;

const body = (stream: boolean) =>
  JSON.stringify({
    model: "bench-model",
    stream,
    max_tokens: 64,
    messages: [{ role: "user", content: "Say ok." }],
  });

type Call = (stream: boolean) => Promise<void>;

function gatewayClientCall(url: string, client: UpstreamClient): { call: Call; close(): void } {
  const headers = { "content-type": "application/json", authorization: "Bearer bench" };
  return {
    async call(stream) {
      const response = await client.send({
        url,
        headers,
        body: body(stream),
        timeoutMs: 30_000,
        idleTimeoutMs: 30_000,
      });
      if (!stream) {
        await response.text();
        return;
      }
      const reader = response.chunks();
      while (!(await reader.next()).done) {
        // Relay nothing: only the read is measured.
      }
    },
    close: () => client.close(),
  };
}

function undiciCall(url: string): { call: Call; close(): void } {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64, pipelining: 1 });
  const headers = { "content-type": "application/json", authorization: "Bearer bench" };
  return {
    async call(stream) {
      const response = await pool.request({
        path: target.pathname,
        method: "POST",
        headers,
        body: body(stream),
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      if (response.statusCode >= 300) {
        await response.body.dump();
        return;
      }
      if (!stream) {
        await response.body.text();
        return;
      }
      for await (const _chunk of response.body) {
        // Relay nothing: only the read is measured.
      }
    },
    close: () => void pool.close(),
  };
}

function nodeHttpCall(url: string): { call: Call; close(): void } {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });
  const headers = { "content-type": "application/json", authorization: "Bearer bench" };
  return {
    call: (stream) =>
      new Promise<void>((resolve, reject) => {
        const payload = body(stream);
        const request = http.request(
          {
            hostname: target.hostname,
            port: target.port,
            path: target.pathname,
            method: "POST",
            headers: { ...headers, "content-length": Buffer.byteLength(payload) },
            agent,
            timeout: 30_000,
          },
          (response) => {
            // Read every chunk, relay nothing: only the read is measured.
            response.on("data", () => {});
            response.once("end", resolve);
            response.once("error", reject);
          },
        );
        request.once("timeout", () => request.destroy(new Error("timeout")));
        request.once("error", reject);
        request.end(payload);
      }),
    close: () => agent.destroy(),
  };
}

async function closedLoop(call: Call, stream: boolean, durationMs: number) {
  const cpuBefore = process.cpuUsage();
  const loopBefore = performance.eventLoopUtilization();
  const started = performance.now();
  let done = 0;
  let failed = 0;
  const worker = async () => {
    while (performance.now() - started < durationMs) {
      try {
        await call(stream);
        done += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const loop = performance.eventLoopUtilization(loopBefore);
  return {
    rate: done / elapsedS,
    cpuPerCall: (cpu.user + cpu.system) / done,
    // The main thread's busy time (ms) per call, in µs: steadier than rates on a shared machine.
    loopPerCall: (loop.active * 1000) / done,
    failed,
  };
}

/**
 * Measures the clients against `chatUrl` (the instant upstream's chat completions URL) for
 * `durationS` seconds per case, non-stream and stream, and prints one table.
 */
export async function benchUpstreamClients(chatUrl: string, durationS: number): Promise<void> {
  const clients = {
    createUpstreamClient: gatewayClientCall(chatUrl, createUpstreamClient()),
    "bare undici 7 Pool": undiciCall(chatUrl),
    "bare node:http request": nodeHttpCall(chatUrl),
  };
  const totals = new Map<
    string,
    { rate: number; cpu: number; loop: number; failed: number; turns: number }
  >();
  for (const stream of [false, true]) {
    for (const client of Object.values(clients)) {
      // Warm every pool before anything is measured.
      await closedLoop(client.call, stream, 1_000);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, client] of Object.entries(clients)) {
        const result = await closedLoop(client.call, stream, (durationS * 1000) / ROUNDS);
        const key = `${name}\u0000${stream}`;
        const total = totals.get(key) ?? { rate: 0, cpu: 0, loop: 0, failed: 0, turns: 0 };
        total.rate += result.rate;
        total.cpu += result.cpuPerCall;
        total.loop += result.loopPerCall;
        total.failed += result.failed;
        total.turns += 1;
        totals.set(key, total);
      }
    }
  }
  for (const client of Object.values(clients)) client.close();
  printTable(
    ["upstream client", "mode", "calls/s", "CPU µs/call", "main thread µs/call", "errors"],
    [...totals].map(([key, total]) => {
      const [name, stream] = key.split("\u0000");
      return [
        name!,
        stream === "true" ? "stream" : "non-stream",
        (total.rate / total.turns).toFixed(0),
        (total.cpu / total.turns).toFixed(0),
        (total.loop / total.turns).toFixed(0),
        String(total.failed),
      ];
    }),
  );
}

/** Run alone: the instant upstream in a child process, then the table. */
async function main(): Promise<void> {
  const durationS = Number(process.argv[2] ?? 8);
  const child = fork(fileURLToPath(new URL("./child.ts", import.meta.url)), ["upstream"], {
    execArgv: ["--conditions=@planfirst/source", "--import", import.meta.resolve("tsx")],
  });
  const url = await new Promise<string>((resolve) => {
    child.on("message", (report: ChildReport) => {
      if (report.type === "listening") resolve(report.url);
    });
  });
  await benchUpstreamClients(`${url}/chat/completions`, durationS);
  child.send({ type: "close" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
