import { mkdirSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { median, printTable } from "@planfirst/bench";
import { Redis } from "ioredis";
import { BENCH_REDIS_URL } from "./bench-redis";
import { type Child, cpuMicros, startChild, stopChild } from "./child-process";
import { GATEWAY_VARIANTS, type GatewayVariant } from "./gateway-variants";
import { benchHeldRequests, heldBenchOptionsFromEnv } from "./held-requests";
import { benchLongStreams, longStreamsSettings } from "./long-streams";
import { busyShareOf, SESSION_WORK } from "./profile-share";
import { chatRequestBody, type LoadResult, loadChat } from "./request-load";
import { benchUpstreamClients } from "./upstream-clients";

// Load benchmark: the same load straight to an instant upstream, through a raw
// node:http proxy, and through the gateway on auto/thrifty served by a hard-stop plan, a keyless
// server, and a paid (budgeted, reserved and settled) rung on the SQLite, memory and Redis
// stores; 32 connections, non-stream and stream, one table from one run. Then the paid SQLite
// gateway's heap after GC at warm-up, +50,000 and +100,000 paid requests.
// Every server runs in its own process; autocannon runs here.
// The machine's speed drifts from one minute to the next (a shared host): each case is measured
// in BENCH_ROUNDS rounds (default 3), the order of the cases rotated every round, and every
// measurement sits between two of the raw proxy; a row's ratio is the median over rounds of its
// req/s ÷ the mean of those two, so a slow minute does not land on whichever path happens to be
// measured last, nor on the raw proxy alone.
// BENCH_DURATION_S: seconds per measured case and round (default 4). BENCH_CPU_PROF=DIR: write a V8 CPU
// profile of each gateway named in BENCH_CPU_PROF_VARIANT (comma-separated, default paid-sqlite) into DIR,
// and print the share of its busy time spent on session affinity (profile-share.ts). BENCH_MEMORY=0 skips the memory run.
// BENCH_ONLY=paid-sqlite,plan: only those gateway variants (direct, the raw proxy and the references
// below always run, but the Redis ledger's only with paid-redis).
// BENCH_REQUEST_LOG=0: the gateways keep no request log (it is on by default, as in a gateway).
// BENCH_MODE=stream (or non-stream): only that mode.
// Reference rows beside the raw proxy (json-forwarder.ts): the least a forwarder that reads its
// JSON must do (parse, undici, parse and answer), and the same reserving and settling on
// planfirst's spend ledger on the SQLite store, and on Redis when the paid-redis variant runs; a
// gateway row's distance to them is the gateway's own work. BENCH_FORWARDERS=0 skips them.
// Every request carries `x-session-affinity: bench-conversation` (one conversation per run, so
// each request looks its session up and finds it pinned: the lookup, the answer header and the
// pin's periodic refresh). The row "plan rung, affinity off" is the plan path with affinity off;
// BENCH_AFFINITY=off turns it off on every path, for a before/after of each.
// Then the gateway's upstream client against bare undici and node:http (upstream-clients.ts);
// BENCH_CLIENTS=0 skips it. Last, with every server above stopped, long streams (long-streams.ts:
// LONG_STREAMS_C concurrent streams of LONG_STREAMS_N chunks over LONG_STREAMS_D_S seconds);
// BENCH_LONG_STREAMS=0 skips it.
// A gateway holding 1,000 requests that wait for a plan, serving other traffic meanwhile
// (held-requests.ts), runs before the servers above stop; BENCH_HELD=0 skips it.
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
const CPU_PROFILE_VARIANTS = (process.env.BENCH_CPU_PROF_VARIANT ?? "paid-sqlite").split(",");
const MEMORY_RUN = process.env.BENCH_MEMORY !== "0";
const CLIENTS_RUN = process.env.BENCH_CLIENTS !== "0";
const HELD_RUN = process.env.BENCH_HELD !== "0";
const LONG_STREAMS_RUN = process.env.BENCH_LONG_STREAMS !== "0";
const FORWARDERS_RUN = process.env.BENCH_FORWARDERS !== "0";
const MODE = process.env.BENCH_MODE;
if (MODE !== undefined && MODE !== "stream" && MODE !== "non-stream") {
  throw new Error(`BENCH_MODE must be stream or non-stream, not "${MODE}"`);
}
const MODES = [false, true].filter(
  (stream) => !MODE || MODE === (stream ? "stream" : "non-stream"),
);
const ONLY = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
const CONNECTIONS = 32;
const WARMUP_REQUESTS = 5_000;
const MEMORY_REQUESTS = 100_000;

function load(url: string, body: string, options: { amount?: number } = {}): Promise<LoadResult> {
  const limit = options.amount ? { amount: options.amount } : { duration: DURATION_S };
  return loadChat(url, body, CONNECTIONS, limit);
}

const startGateway = (variant: GatewayVariant, upstreamUrl: string, nodeOptions: string[] = []) =>
  startChild(["gateway", upstreamUrl, variant], ["--expose-gc", ...nodeOptions]);

const loadBefore = loadavg();
const upstream = await startChild(["upstream"]);
const proxy = await startChild(["raw-proxy", upstream.url]);
const forwarders = FORWARDERS_RUN
  ? {
      plain: await startChild(["json-forwarder", upstream.url]),
      sqlite: await startChild(["json-forwarder", upstream.url, "sqlite"]),
      redis:
        !ONLY || ONLY.includes("paid-redis")
          ? await startChild(["json-forwarder", upstream.url, "redis"])
          : null,
    }
  : null;
if (CPU_PROFILE_DIR) mkdirSync(CPU_PROFILE_DIR, { recursive: true });
const profiled = CPU_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [];
const gateways: Partial<Record<GatewayVariant, Child>> = {};
for (const variant of GATEWAY_VARIANTS) {
  if (ONLY && !ONLY.includes(variant)) continue;
  gateways[variant] = await startGateway(
    variant,
    upstream.url,
    CPU_PROFILE_VARIANTS.includes(variant) ? profiled : [],
  );
}

// The Redis server's own CPU, read around each measurement of the Redis path: it runs on the same
// cores as every hop, so its time per request is part of what that path costs the machine.
/** The servers whose requests book on Redis. */
const onRedis = [gateways["paid-redis"], forwarders?.redis].filter((child) => child != null);
const redisInfo =
  onRedis.length > 0 ? new Redis(BENCH_REDIS_URL, { maxRetriesPerRequest: 1 }) : null;
/** The Redis server's CPU time (user + system, every thread) since it started, µs. */
const redisCpuMicros = async (): Promise<number> => {
  if (!redisInfo) return 0;
  const info = await redisInfo.info("cpu");
  const seconds = (name: string) => Number(info.match(new RegExp(`^${name}:([\\d.]+)`, "m"))?.[1]);
  return (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6;
};

console.log(
  `${CONNECTIONS} connections, ${WARMUP_REQUESTS} warm-up requests per case, then ${ROUNDS} rounds of ` +
    `${DURATION_S} s per case in rotated order, each between two runs of the raw proxy (req/s, ` +
    'p50, p99: medians; "of raw proxy": median of each round\'s ratio to the mean of the raw ' +
    'proxy runs around it, "rounds": their range; ' +
    "CPU: over all rounds); upstream, raw proxy and each gateway in their own process, load " +
    "generator in this one.",
);
console.log(
  "Gateways on auto/thrifty, log level info: plan = a coding plan of its own (provider " +
    "bench-plan on the generic openai connector, hard-stop plan by an operator entry, rung 0); keyless = ollama, authType none; paid = an OpenRouter key on a priced model (cheap " +
    "rung, budgeted: each request reserves its worst case durably before the upstream call, " +
    "then settles) on the SQLite (default, synchronous=FULL), memory or Redis store. Every " +
    "request names one session (x-session-affinity); session affinity is " +
    (process.env.BENCH_AFFINITY === "off"
      ? "off on every path."
      : "on except where a row says off."),
);
if (forwarders) {
  console.log(
    "References (json-forwarder.ts, own processes): JSON forwarder = parses the body, sends it " +
      "on undici, parses and answers the reply (a stream relayed as it comes), nothing else; " +
      "+ SQLite ledger = the same, reserving a fixed worst case durably on planfirst's spend " +
      "ledger (SQLite) before the upstream call and settling after; + Redis ledger = the same " +
      "on the Redis store.",
  );
}
console.log("");

// The CPU column is the serving process's own time, every thread (the upstream's for "direct"):
// on a machine shared by the load generator and every hop, it is steadier than req/s. The loop
// column is the time the main thread's event loop was busy: a Node server's ceiling is one core
// of it, whatever its other threads (the SQLite commit thread) use. "loop busy" is that time over
// the wall time of the load: near 100 % the path is bound by its own main thread; well below, its
// requests were waiting on something else (a commit's fsync, a Redis reply) with the loop idle.
// "Redis CPU" is the Redis server's own time per request of the Redis path (INFO cpu around each
// measurement): it shares the machine's cores with the gateway, the upstream and the load.
// "machine busy" is the CPU time of everything serving the load (the load generator in this
// process, the upstream, the measured hop, Redis) over the wall time of every core: a row with
// its loop near 100 % and the machine well below is bound by its own main thread, not by the
// machine; a row near 100 % there could go no faster on this machine, however it were spread.
const CORES = availableParallelism();
const labels: Record<GatewayVariant, string> = {
  plan: "planfirst, plan rung",
  "plan-no-affinity": "planfirst, plan rung, affinity off",
  keyless: "planfirst, keyless rung",
  "paid-sqlite": "planfirst, paid rung, SQLite (default)",
  "paid-memory": "planfirst, paid rung, memory",
  "paid-redis": "planfirst, paid rung, Redis",
};
const REDIS_FORWARDER = "reference: JSON forwarder + Redis ledger";
const cases: [string, string, string, Child][] = [
  ["direct", `${upstream.url}/chat/completions`, "bench-model", upstream],
  ["raw node:http proxy", `${proxy.url}/v1/chat/completions`, "bench-model", proxy],
  ...(forwarders
    ? ([
        [
          "reference: JSON forwarder",
          `${forwarders.plain.url}/v1/chat/completions`,
          "auto/thrifty",
          forwarders.plain,
        ],
        [
          "reference: JSON forwarder + SQLite ledger",
          `${forwarders.sqlite.url}/v1/chat/completions`,
          "auto/thrifty",
          forwarders.sqlite,
        ],
        ...(forwarders.redis
          ? ([
              [
                REDIS_FORWARDER,
                `${forwarders.redis.url}/v1/chat/completions`,
                "auto/thrifty",
                forwarders.redis,
              ],
            ] satisfies [string, string, string, Child][])
          : []),
      ] satisfies [string, string, string, Child][])
    : []),
  ...Object.entries(gateways).map(([variant, child]): [string, string, string, Child] => [
    labels[variant as GatewayVariant],
    `${child.url}/v1/chat/completions`,
    "auto/thrifty",
    child,
  ]),
];

/** One measurement of one case in one round. */
interface Sample {
  result: LoadResult;
  cpuMicros: number;
  loopMicros: number;
  /** The Redis server's CPU time during the load (on the Redis path only, else 0). */
  redisMicros: number;
  /**
   * The CPU time of everything that served the load: this process (the load generator), the
   * upstream, the measured server (when it is not the upstream itself) and Redis.
   */
  machineMicros: number;
  /** Wall-clock time of the load, in microseconds. */
  wallMicros: number;
  /** Its req/s ÷ the mean of the raw proxy's just before and just after it (1 for the raw proxy). */
  ratio: number;
}
interface Row {
  name: string;
  stream: boolean;
  samples: Sample[];
}
const RAW = "raw node:http proxy";
const rows: Row[] = [];
for (const stream of MODES) {
  const modeRows = cases.map(([name]): Row => ({ name, stream, samples: [] }));
  rows.push(...modeRows);
  for (const [, url, model] of cases) {
    await load(url, chatRequestBody(model, stream), { amount: WARMUP_REQUESTS });
  }
  const rawRow = modeRows.find((row) => row.name === RAW)!;
  const others = cases.filter(([name]) => name !== RAW);
  const [, rawUrl, rawModel, rawServer] = cases.find(([name]) => name === RAW)!;
  const measure = async (url: string, model: string, server: Child) => {
    const redisRead = onRedis.includes(server);
    const before = await cpuMicros(server);
    const upstreamBefore = server === upstream ? before : await cpuMicros(upstream);
    const redisBefore = redisRead ? await redisCpuMicros() : 0;
    const generatorBefore = process.cpuUsage();
    const startedAt = performance.now();
    const result = await load(url, chatRequestBody(model, stream));
    const wallMicros = (performance.now() - startedAt) * 1000;
    const generatorUsed = process.cpuUsage(generatorBefore);
    const redisAfter = redisRead ? await redisCpuMicros() : 0;
    const after = await cpuMicros(server);
    const upstreamAfter = server === upstream ? after : await cpuMicros(upstream);
    const cpu = after.cpu - before.cpu;
    const redisMicros = redisAfter - redisBefore;
    const upstreamMicros = server === upstream ? 0 : upstreamAfter.cpu - upstreamBefore.cpu;
    return {
      result,
      cpuMicros: cpu,
      loopMicros: after.loop - before.loop,
      redisMicros,
      machineMicros: cpu + upstreamMicros + redisMicros + generatorUsed.user + generatorUsed.system,
      wallMicros,
    };
  };
  for (let round = 0; round < ROUNDS; round++) {
    let rawBefore = await measure(rawUrl, rawModel, rawServer);
    rawRow.samples.push({ ...rawBefore, ratio: 1 });
    for (let index = 0; index < others.length; index++) {
      const [name, url, model, server] = others[(index + round) % others.length]!;
      const sample = await measure(url, model, server);
      const rawAfter = await measure(rawUrl, rawModel, rawServer);
      rawRow.samples.push({ ...rawAfter, ratio: 1 });
      const rawRate = (rawBefore.result.requests.average + rawAfter.result.requests.average) / 2;
      modeRows
        .find((row) => row.name === name)!
        .samples.push({ ...sample, ratio: sample.result.requests.average / rawRate });
      rawBefore = rawAfter;
    }
  }
}
/** A row's figures over its rounds: medians, and CPU per request over all its requests. */
const summary = (row: Row) => {
  const requests = row.samples.reduce((sum, sample) => sum + sample.result.requests.total, 0);
  const ratios = row.samples.map((sample) => sample.ratio);
  return {
    rate: median(row.samples.map((sample) => sample.result.requests.average)),
    ratio: median(ratios),
    minRatio: Math.min(...ratios),
    maxRatio: Math.max(...ratios),
    p50: median(row.samples.map((sample) => sample.result.latency.p50)),
    p99: median(row.samples.map((sample) => sample.result.latency.p99)),
    cpu: row.samples.reduce((sum, sample) => sum + sample.cpuMicros, 0) / requests,
    loop: row.samples.reduce((sum, sample) => sum + sample.loopMicros, 0) / requests,
    redis: row.samples.reduce((sum, sample) => sum + sample.redisMicros, 0) / requests,
    busy:
      row.samples.reduce((sum, sample) => sum + sample.loopMicros, 0) /
      row.samples.reduce((sum, sample) => sum + sample.wallMicros, 0),
    machineBusy:
      row.samples.reduce((sum, sample) => sum + sample.machineMicros, 0) /
      row.samples.reduce((sum, sample) => sum + sample.wallMicros * CORES, 0),
    errors: row.samples.reduce(
      (sum, { result }) => sum + result.non2xx + result.errors + result.timeouts,
      0,
    ),
  };
};
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)} %`;
printTable(
  [
    "path",
    "mode",
    "req/s",
    "of raw proxy",
    "rounds",
    "p50 ms",
    "p99 ms",
    "CPU µs/req",
    "loop µs/req",
    "loop busy",
    "machine busy",
    "Redis CPU µs/req",
    "errors",
  ],
  rows.map((row) => {
    const figures = summary(row);
    return [
      row.name,
      row.stream ? "stream" : "non-stream",
      figures.rate.toFixed(0),
      percent(figures.ratio),
      `${(figures.minRatio * 100).toFixed(0)}–${(figures.maxRatio * 100).toFixed(0)}`,
      String(figures.p50),
      String(figures.p99),
      figures.cpu.toFixed(0),
      figures.loop.toFixed(0),
      percent(figures.busy),
      percent(figures.machineBusy),
      row.name === labels["paid-redis"] || row.name === REDIS_FORWARDER
        ? figures.redis.toFixed(0)
        : "—",
      String(figures.errors),
    ];
  }),
);
console.log("");
// Every request path, stream or not, is held to 60 % of the raw proxy. The paid rows fall below it
// on a 2-core machine, by about what their ledger costs the forwarder reference: see decision
// record 10 (docs/decisions/0010-paid-throughput.md).
const TARGET_PERCENT = 60;
for (const stream of [false, true]) {
  const planfirst = rows.filter((row) => row.stream === stream && row.name.startsWith("planfirst"));
  if (planfirst.length === 0) continue;
  const worst = Math.min(...planfirst.map((row) => summary(row).ratio));
  console.log(
    `${stream ? "stream" : "non-stream"}: slowest planfirst path ${percent(worst)} ` +
      `of the raw proxy, median of ${ROUNDS} rounds (target ≥ ${TARGET_PERCENT} %)`,
  );
}

const paid = gateways["paid-sqlite"];
if (MEMORY_RUN && paid) {
  const paidUrl = `${paid.url}/v1/chat/completions`;
  const mb = (bytes: number | null) =>
    bytes === null ? "n/a" : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const memoryRow = async (label: string): Promise<string[]> => {
    const report = await paid.ask({ type: "memory" });
    if (report.type !== "memory") throw new Error("the gateway did not report its memory");
    return [label, mb(report.rssBytes), mb(report.heapUsedAfterGcBytes)];
  };
  const memory: string[][] = [await memoryRow("after warm-up and the cases above")];
  let served = 0;
  let failed = 0;
  for (const stream of [false, true]) {
    const result = await load(paidUrl, chatRequestBody("auto/thrifty", stream), {
      amount: MEMORY_REQUESTS / 2,
    });
    served += MEMORY_REQUESTS / 2;
    failed += result.non2xx + result.errors + result.timeouts;
    memory.push(
      await memoryRow(`+ ${served.toLocaleString("en-US")} paid requests (${failed} failed)`),
    );
  }
  console.log("");
  printTable(["paid SQLite gateway", "RSS", "heap used after GC"], memory);
}

if (CLIENTS_RUN) {
  console.log("\nThe upstream client alone, against the instant upstream, from this process:");
  await benchUpstreamClients(`${upstream.url}/chat/completions`, DURATION_S);
}

if (HELD_RUN) await benchHeldRequests(heldBenchOptionsFromEnv(upstream.url));

for (const child of [
  ...Object.values(gateways),
  ...Object.values(forwarders ?? {}).filter((child) => child !== null),
  proxy,
  upstream,
]) {
  await stopChild(child);
}
redisInfo?.disconnect();
if (CPU_PROFILE_DIR) printSessionShares(CPU_PROFILE_DIR);
if (LONG_STREAMS_RUN) {
  console.log("");
  await benchLongStreams(longStreamsSettings());
}
const loadAfter = loadavg();
console.log(
  `\nload average (1 min) before ${loadBefore[0]!.toFixed(2)}, after ${loadAfter[0]!.toFixed(2)}`,
);
if (CPU_PROFILE_DIR)
  console.log(
    `${CPU_PROFILE_VARIANTS.join(", ")} gateway CPU profiles written to ${CPU_PROFILE_DIR}`,
  );

/**
 * From each profiled gateway's CPU profile: the share of its busy time spent on session
 * affinity (the key, its hash, the pin lookup and write, the answer header), the whole cost of
 * the session lookup to that path, measured in the process rather than by the difference of two
 * rows (which moves by more than that share between runs on a shared machine).
 */
function printSessionShares(dir: string): void {
  console.log("\nSession affinity work, share of each profiled gateway's busy time (CPU profile):");
  for (const variant of CPU_PROFILE_VARIANTS) {
    const pid = gateways[variant as GatewayVariant]?.process.pid;
    const share = pid === undefined ? null : busyShareOf(dir, pid, SESSION_WORK);
    const label = labels[variant as GatewayVariant] ?? variant;
    console.log(`  ${label}: ${share === null ? "no profile" : `${(share * 100).toFixed(2)} %`}`);
  }
}
