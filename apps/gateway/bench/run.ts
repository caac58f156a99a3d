import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { printTable } from "@planfirst/bench";
// autocannon ships no type declarations.
// @ts-expect-error no types
import autocannon from "autocannon";
import type { ChildCommand, ChildReport } from "./child";

// Load benchmark (issue 6 "Performance"): the same load straight to an instant upstream, through
// a raw node:http proxy, and through the gateway on auto/thrifty; 32 connections, non-stream and
// stream; then the gateway's resident memory after warm-up and after 100,000 requests.
// The upstream, the raw proxy and the gateway each run in their own process; autocannon runs here.
// BENCH_DURATION_S: seconds per measured case (default 8). BENCH_CPU_PROF=DIR: write a V8 CPU
// profile of the gateway process into DIR.
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
const CONNECTIONS = 32;
const WARMUP_REQUESTS = 5_000;
const MEMORY_REQUESTS = 100_000;

interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface Child {
  readonly process: ChildProcess;
  readonly url: string;
  ask(command: ChildCommand): Promise<ChildReport>;
}

const childScript = fileURLToPath(new URL("./child.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

function startChild(args: string[], nodeOptions: string[] = []): Promise<Child> {
  const child = spawn(
    process.execPath,
    [...nodeOptions, "--conditions=@planfirst/source", "--import", tsx, childScript, ...args],
    { stdio: ["ignore", "ignore", "inherit", "ipc"] },
  );
  const ask = (command: ChildCommand) =>
    new Promise<ChildReport>((resolve) => {
      child.once("message", (report) => resolve(report as ChildReport));
      child.send(command);
    });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${args[0]} exited early (${code})`)));
    child.once("message", (report: ChildReport) => {
      if (report.type === "listening") resolve({ process: child, url: report.url, ask });
    });
  });
}

async function stopChild(child: Child): Promise<void> {
  child.process.removeAllListeners("exit");
  const exited = new Promise((resolve) => child.process.once("exit", resolve));
  child.process.send({ type: "close" } satisfies ChildCommand);
  await exited;
}

async function cpuMicros(child: Child): Promise<number> {
  const report = await child.ask({ type: "cpu" });
  if (report.type !== "cpu") throw new Error("a benchmark server did not report its CPU time");
  return report.cpuMicros;
}

function load(url: string, body: string, options: { amount?: number } = {}): Promise<LoadResult> {
  return autocannon({
    url,
    method: "POST",
    connections: CONNECTIONS,
    headers: { "content-type": "application/json" },
    body,
    ...(options.amount ? { amount: options.amount } : { duration: DURATION_S }),
  });
}

const body = (model: string, stream: boolean) =>
  JSON.stringify({
    model,
    stream,
    max_tokens: 64,
    messages: [{ role: "user", content: "Say ok." }],
  });

const upstream = await startChild(["upstream"]);
const proxy = await startChild(["raw-proxy", upstream.url]);
if (CPU_PROFILE_DIR) mkdirSync(CPU_PROFILE_DIR, { recursive: true });
const gateway = await startChild(
  ["gateway", upstream.url],
  ["--expose-gc", ...(CPU_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [])],
);

console.log(
  `${CONNECTIONS} connections, ${DURATION_S} s per case after ${WARMUP_REQUESTS} warm-up requests; ` +
    "upstream, raw proxy and gateway each in their own process, load generator in this one.",
);
console.log(
  "Gateway: one keyless connection (ollama, authType none) on auto/thrifty, default SQLite store, " +
    "log level info. A keyless or plan connection costs nothing, so no spend is reserved or settled: " +
    "the ledger is not on this path.",
);
console.log("");

const rows: string[][] = [];
const results: Record<string, number> = {};
for (const stream of [false, true]) {
  // The CPU column is the serving process's own time (the upstream's for "direct"): on a
  // machine shared by the load generator and every hop, it is steadier than req/s.
  const cases: [string, string, string, Child][] = [
    ["direct", `${upstream.url}/chat/completions`, "bench-model", upstream],
    ["raw node:http proxy", `${proxy.url}/v1/chat/completions`, "bench-model", proxy],
    ["gateway auto/thrifty", `${gateway.url}/v1/chat/completions`, "auto/thrifty", gateway],
  ];
  for (const [name, url, model, server] of cases) {
    await load(url, body(model, stream), { amount: WARMUP_REQUESTS });
    const cpuBefore = await cpuMicros(server);
    const result = await load(url, body(model, stream));
    const cpuPerRequest = ((await cpuMicros(server)) - cpuBefore) / result.requests.total;
    results[`${name}:${stream}`] = result.requests.average;
    rows.push([
      name,
      stream ? "stream" : "non-stream",
      result.requests.average.toFixed(0),
      String(result.latency.p50),
      String(result.latency.p99),
      cpuPerRequest.toFixed(0),
      String(result.non2xx + result.errors + result.timeouts),
    ]);
  }
}
printTable(["target", "mode", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "errors"], rows);
console.log("");
for (const stream of [false, true]) {
  const mode = stream ? "stream" : "non-stream";
  const viaProxy = results[`raw node:http proxy:${stream}`]!;
  const viaGateway = results[`gateway auto/thrifty:${stream}`]!;
  const direct = results[`direct:${stream}`]!;
  console.log(
    `${mode}: gateway / raw proxy ${((viaGateway / viaProxy) * 100).toFixed(0)} %, ` +
      `raw proxy / direct ${((viaProxy / direct) * 100).toFixed(0)} %`,
  );
}

const mb = (bytes: number | null) =>
  bytes === null ? "n/a" : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
async function memoryRow(label: string): Promise<string[]> {
  const report = await gateway.ask({ type: "memory" });
  if (report.type !== "memory") throw new Error("the gateway did not report its memory");
  return [label, mb(report.rssBytes), mb(report.heapUsedAfterGcBytes)];
}
const memory: string[][] = [await memoryRow("after warm-up and the cases above")];
let served = 0;
let failed = 0;
for (const stream of [false, true]) {
  const result = await load(`${gateway.url}/v1/chat/completions`, body("auto/thrifty", stream), {
    amount: MEMORY_REQUESTS / 2,
  });
  served += MEMORY_REQUESTS / 2;
  failed += result.non2xx + result.errors + result.timeouts;
  memory.push(await memoryRow(`+ ${served.toLocaleString("en-US")} requests (${failed} failed)`));
}
console.log("");
printTable(["gateway process", "RSS", "heap used after GC"], memory);

await stopChild(gateway);
await stopChild(proxy);
await stopChild(upstream);
if (CPU_PROFILE_DIR) console.log(`\ngateway CPU profile written to ${CPU_PROFILE_DIR}`);
