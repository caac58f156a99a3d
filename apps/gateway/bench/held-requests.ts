import http from "node:http";
import { pathToFileURL } from "node:url";
import { median, printTable } from "@planfirst/bench";
// autocannon ships no type declarations.
// @ts-expect-error no types
import autocannon from "autocannon";
import { type Child, cpuMicros, startChild, stopChild } from "./child-process";

// Held-requests benchmark (ladder.md §17): one gateway holds BENCH_HELD_WAITERS (default 1,000)
// `auto/subscription` requests waiting for a z.ai plan that is out for nine minutes, each on its
// own socket, while autocannon measures another path of the same gateway (a keyless model on the
// instant upstream, non-stream, 32 connections), after 5,000 requests of warm-up. Each round
// measures that path with no waiter and with the waiters held (in turn first), then lets them go;
// BENCH_ROUNDS rounds (default 3), BENCH_DURATION_S seconds per measurement (default 4). Also:
// how long the gateway took to hold them all, the CPU it spends holding them with no other
// traffic (its lines look at the plan at most twice a second), and its heap after GC with and
// without them. Run alone from apps/gateway: `npx tsx --conditions=@planfirst/source
// bench/held-requests.ts` (BENCH_HELD_WAITERS=200 BENCH_DURATION_S=2 BENCH_ROUNDS=1 for a short
// run); `pnpm bench` runs it last unless BENCH_HELD=0.

/** What {@link benchHeldRequests} measures with. */
export interface HeldBenchOptions {
  /** The instant upstream the keyless model is served from. */
  upstreamUrl: string;
  /** Requests held while the other path is measured. */
  waiters: number;
  /** Seconds per measurement. */
  durationS: number;
  rounds: number;
}

const CONNECTIONS = 32;
const WARMUP_REQUESTS = 5_000;
const IDLE_MS = 2_000;
const WAITING_BODY = JSON.stringify({
  model: "auto/subscription",
  max_tokens: 16,
  messages: [{ role: "user", content: "wait for the plan" }],
});
const OTHER_BODY = JSON.stringify({
  model: "bench-model",
  max_tokens: 16,
  messages: [{ role: "user", content: "Say ok." }],
});

interface Sample {
  rate: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  /** The gateway's event loop busy time over the wall time of the load (0..1). */
  loopBusy: number;
  errors: number;
}

/** Runs the held-requests benchmark against a gateway child of its own and prints one table. */
export async function benchHeldRequests(options: HeldBenchOptions): Promise<void> {
  const gateway = await startChild(["held-gateway", options.upstreamUrl], ["--expose-gc"]);
  try {
    const refused = await postJson(gateway.url, WAITING_BODY, { "x-planfirst-max-wait": "0" });
    if (refused !== 429) throw new Error(`the plan should be out (429), it answered ${refused}`);
    await load(gateway.url, { amount: WARMUP_REQUESTS });
    const without: Sample[] = [];
    const withHeld: Sample[] = [];
    const holdMs: number[] = [];
    const idle = { without: [] as IdleCost[], held: [] as IdleCost[] };
    const heapBytes = { without: [] as number[], held: [] as number[] };
    for (let round = 0; round < options.rounds; round++) {
      // Every other round measures with the waiters first: a machine that slows down over the
      // run does not land on one side only.
      if (round % 2 === 0) without.push(await measure(gateway, options.durationS));
      heapBytes.without.push(await heapAfterGc(gateway));
      idle.without.push(await idleCost(gateway));
      const startedAt = performance.now();
      const held = holdRequests(gateway.url, options.waiters);
      await untilWaiting(gateway.url, options.waiters);
      holdMs.push(performance.now() - startedAt);
      // After a full collection on both sides: the CPU of holding, not of collecting the
      // garbage the arrivals left.
      heapBytes.held.push(await heapAfterGc(gateway));
      idle.held.push(await idleCost(gateway));
      withHeld.push(await measure(gateway, options.durationS));
      held.release();
      await untilWaiting(gateway.url, 0);
      if (round % 2 === 1) without.push(await measure(gateway, options.durationS));
    }
    const row = (name: string, samples: Sample[]) => [
      name,
      median(samples.map((s) => s.rate)).toFixed(0),
      `${((median(samples.map((s) => s.rate)) / median(without.map((s) => s.rate))) * 100).toFixed(0)} %`,
      String(median(samples.map((s) => s.p50))),
      String(median(samples.map((s) => s.p99))),
      median(samples.map((s) => s.cpuPerRequest)).toFixed(0),
      `${(median(samples.map((s) => s.loopBusy)) * 100).toFixed(0)} %`,
      String(samples.reduce((sum, s) => sum + s.errors, 0)),
    ];
    console.log(
      `\nHeld requests: a keyless model on the instant upstream, ${CONNECTIONS} connections, ` +
        `non-stream, ${options.rounds} round(s) of ${options.durationS} s each way (medians).`,
    );
    printTable(
      [
        "other traffic",
        "req/s",
        "of no waiters",
        "p50 ms",
        "p99 ms",
        "CPU µs/req",
        "loop busy",
        "errors",
      ],
      [
        row("no request waiting", without),
        row(`${options.waiters.toLocaleString("en-US")} requests waiting`, withHeld),
      ],
    );
    console.log(
      `holding ${options.waiters.toLocaleString("en-US")} took ${median(holdMs).toFixed(0)} ms; ` +
        `with no other traffic, per second: ${describeIdle(idle.held)} holding them, ` +
        `${describeIdle(idle.without)} with none waiting`,
    );
    const heldKb = (median(heapBytes.held) - median(heapBytes.without)) / 1024;
    console.log(
      `heap after GC: ${(median(heapBytes.without) / 1048576).toFixed(1)} MB with none waiting, ` +
        `${(median(heapBytes.held) / 1048576).toFixed(1)} MB with them ` +
        `(${(heldKb / options.waiters).toFixed(1)} KB per held request)`,
    );
  } finally {
    await stopChild(gateway);
  }
}

/** What the gateway spends with no traffic, per second: CPU (every thread) and main-loop time. */
interface IdleCost {
  cpuMs: number;
  loopMs: number;
}

async function idleCost(gateway: Child): Promise<IdleCost> {
  const before = await cpuMicros(gateway);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const after = await cpuMicros(gateway);
  const seconds = IDLE_MS / 1000;
  return {
    cpuMs: (after.cpu - before.cpu) / 1000 / seconds,
    loopMs: (after.loop - before.loop) / 1000 / seconds,
  };
}

function describeIdle(costs: IdleCost[]): string {
  const cpu = median(costs.map((cost) => cost.cpuMs)).toFixed(1);
  const loop = median(costs.map((cost) => cost.loopMs)).toFixed(1);
  return `${cpu} ms of CPU (${loop} ms of it on the event loop)`;
}

/** The gateway's live heap after a full collection, in bytes. */
async function heapAfterGc(gateway: Child): Promise<number> {
  const report = await gateway.ask({ type: "memory" });
  if (report.type !== "memory" || report.heapUsedAfterGcBytes === null) {
    throw new Error("the gateway did not report its heap after GC");
  }
  return report.heapUsedAfterGcBytes;
}

async function measure(gateway: Child, durationS: number): Promise<Sample> {
  const before = await cpuMicros(gateway);
  const startedAt = performance.now();
  const result = await load(gateway.url, { duration: durationS });
  const after = await cpuMicros(gateway);
  const wallMicros = (performance.now() - startedAt) * 1000;
  return {
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest: (after.cpu - before.cpu) / Math.max(1, result.requests.total),
    loopBusy: (after.loop - before.loop) / wallMicros,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** The other traffic: the keyless model, non-stream, for a duration (s) or an amount of requests. */
function load(url: string, limit: { duration: number } | { amount: number }) {
  return autocannon({
    url: `${url}/v1/chat/completions`,
    method: "POST",
    connections: CONNECTIONS,
    headers: { "content-type": "application/json" },
    body: OTHER_BODY,
    ...limit,
  });
}

/** Sends `count` waiting requests, each on a socket of its own; `release` hangs them all up. */
function holdRequests(url: string, count: number): { release(): void } {
  const target = new URL("/v1/chat/completions", url);
  const requests: http.ClientRequest[] = [];
  for (let i = 0; i < count; i++) {
    const request = http.request(target, {
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(WAITING_BODY),
        "x-planfirst-max-wait": "600",
      },
    });
    // Hanging up is how the benchmark lets them go: the resets are expected.
    request.on("error", () => undefined);
    request.end(WAITING_BODY);
    requests.push(request);
  }
  return {
    release() {
      for (const request of requests) request.destroy();
    },
  };
}

/** Polls the status until the plan's line holds `count` requests (10 s at most). */
async function untilWaiting(url: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (true) {
    const status = (await (await fetch(`${url}/v1/status`)).json()) as {
      connections: { id: string; waiting: { requests: number } | null }[];
    };
    const waiting = status.connections.find((c) => c.id === "zai-plan")?.waiting?.requests ?? 0;
    if (waiting === count) return;
    if (Date.now() > deadline) throw new Error(`${waiting} requests waiting, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function postJson(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  await response.text();
  return response.status;
}

/** The knobs shared with the load benchmark (see the header of this file). */
export function heldBenchOptionsFromEnv(upstreamUrl: string): HeldBenchOptions {
  return {
    upstreamUrl,
    waiters: Number(process.env.BENCH_HELD_WAITERS ?? 1_000),
    durationS: Number(process.env.BENCH_DURATION_S ?? 4),
    rounds: Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const upstream = await startChild(["upstream"]);
  try {
    await benchHeldRequests(heldBenchOptionsFromEnv(upstream.url));
  } finally {
    await stopChild(upstream);
  }
}
