import { fileURLToPath } from "node:url";
import { printTable, quantile } from "@planfirst/bench";
import { Agent } from "undici";
import { MAX_REQUESTS_LIMIT } from "../src/app/routes/requests";
import { type Child, cpuMicros, startChild, stopChild } from "./child-process";
import type { GatewayVariant } from "./gateway-variants";

// Long streams, as a team's agents hold them: LONG_STREAMS_C concurrent `stream: true` chat
// completions (default 1000), opened evenly over 2 s, each LONG_STREAMS_N chunks (200) over
// LONG_STREAMS_D_S seconds (20) from one slow upstream (slow-upstream.ts), straight to the
// upstream, through the raw node:http proxy, and through the gateway on auto/thrifty with a
// keyless connection and with a paid one on the SQLite default. One path at a time, each server
// in its own process, the load generator (an undici Agent, no socket cap) in this one. Per path:
// streams completed (200, every chunk, `data: [DONE]`); time to the first body byte p50/p99 and
// what the hop adds over the direct path; the server's resident memory while every stream is
// open minus its RSS before the run, over C (both read after full collections, so garbage a
// collection had yet to take is not counted); the same for its live memory (V8 heap used plus
// memory outside it, buffers included), since pages V8 keeps free after a collection absorb part
// of a process's growth before its RSS moves, so below a few thousand streams the live figure is
// the steadier one; and the server's CPU (user + system, every thread) over C. For a gateway,
// also its own time to first byte p50/p99 (its request log's `ttfbMs`, read from `/v1/requests`:
// from the moment its handler takes the request to its first byte out); what the load generator
// sees on top of that went by before the gateway read the request (an event loop that is busy
// accepts and parses late) or in delivery. On a 2-core machine the load generator's p99 swings
// from run to run far more than the gateway's own: in a run where it reached 565 ms, the
// gateway's event-loop delay, its time from a connection to its request and from the request
// to the response head all stayed under 80 ms while the streams opened; in another such run
// the machine, whose cores the load generator, the upstream and the hop share, was 88–91 % busy
// then. In some such runs the gateway's listening socket held 120–350 connections not yet
// accepted (it took about 350 a second while 500 came); in others it held none and the tail was
// as long. D must outlast the 2 s of opening and the second the open reading takes, or the first
// streams end before it.
// Alone: cd apps/gateway && npx tsx --conditions=@planfirst/source bench/long-streams.ts

/** What {@link benchLongStreams} runs. */
export interface LongStreamsSettings {
  /** Concurrent streams. */
  streams: number;
  /** Content chunks per stream. */
  chunks: number;
  /** Seconds from a stream's first content chunk to its last. */
  durationS: number;
  /** Time over which the streams are opened, evenly, milliseconds. */
  openOverMs: number;
  /** Gateway variants measured (direct and the raw proxy always are). */
  variants: readonly GatewayVariant[];
}

/** The gateway variants this benchmark measures. */
const LONG_STREAM_VARIANTS: readonly GatewayVariant[] = ["keyless", "paid-sqlite"];

/**
 * The settings from LONG_STREAMS_C, LONG_STREAMS_N, LONG_STREAMS_D_S and BENCH_ONLY (as in
 * run.ts: the gateway variants to measure, of keyless and paid-sqlite).
 */
export function longStreamsSettings(env: NodeJS.ProcessEnv = process.env): LongStreamsSettings {
  const only = env.BENCH_ONLY?.split(",").map((name) => name.trim());
  return {
    streams: Number(env.LONG_STREAMS_C ?? 1000),
    chunks: Number(env.LONG_STREAMS_N ?? 200),
    durationS: Number(env.LONG_STREAMS_D_S ?? 20),
    openOverMs: 2_000,
    variants: LONG_STREAM_VARIANTS.filter((variant) => !only || only.includes(variant)),
  };
}

/** Pause between the two collections of a memory reading, milliseconds. */
const SETTLE_MS = 500;

/** Short streams sent to each path before it is measured. */
const WARMUP_STREAMS = 400;
const WARMUP_CONCURRENCY = 50;

/** One stream as the load generator saw it. */
interface StreamResult {
  completed: boolean;
  /** From sending the request to its first body byte, milliseconds; null when none came. */
  ttfbMs: number | null;
}

/** A server's memory once garbage is gone, bytes. */
interface MemoryReading {
  rss: number;
  /** V8 heap used plus memory outside it (`external`: buffers, native state). */
  live: number;
}

/** One path's figures. */
interface PathResult {
  name: string;
  results: StreamResult[];
  /** The server's settled memory before the run and with every stream open; none direct. */
  memory: { before: MemoryReading; open: MemoryReading } | null;
  /** Server CPU per stream, µs; null for the direct path. */
  cpuPerStreamMicros: number | null;
  /** The gateway's own time to first byte (its request log's), ms; null for the other paths. */
  ownTtfb: { p50: number; p99: number } | null;
}

const requestBody = (model: string, maxTokens: number) =>
  JSON.stringify({
    model,
    stream: true,
    max_tokens: maxTokens,
    messages: [{ role: "user", content: "Write a long answer." }],
  });

/**
 * Sends one streamed request and reads it to its end. `firstByte` is called once, at its first
 * body byte (or when it fails without one).
 */
function runStream(
  agent: Agent,
  url: URL,
  body: string,
  firstByte: () => void,
): Promise<StreamResult> {
  const startedAt = performance.now();
  let ttfbMs: number | null = null;
  let seen = false;
  const markFirst = () => {
    if (seen) return;
    seen = true;
    firstByte();
  };
  return new Promise<StreamResult>((resolve) => {
    const fail = () => {
      markFirst();
      resolve({ completed: false, ttfbMs });
    };
    agent
      .request({
        origin: url.origin,
        path: url.pathname,
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      })
      .then(({ statusCode, body: stream }) => {
        let tail = "";
        stream.on("data", (chunk: Buffer) => {
          if (ttfbMs === null) {
            ttfbMs = performance.now() - startedAt;
            markFirst();
          }
          tail = (tail + chunk.toString("latin1")).slice(-32);
        });
        stream.on("error", fail);
        stream.on("end", () => {
          markFirst();
          resolve({ completed: statusCode === 200 && tail.endsWith("data: [DONE]\n\n"), ttfbMs });
        });
      }, fail);
  });
}

async function warmUp(agent: Agent, url: URL, model: string): Promise<void> {
  const body = requestBody(model, 1);
  for (let sent = 0; sent < WARMUP_STREAMS; sent += WARMUP_CONCURRENCY) {
    await Promise.all(
      Array.from({ length: WARMUP_CONCURRENCY }, () => runStream(agent, url, body, () => {})),
    );
  }
}

/**
 * The server's memory once garbage is gone: a full GC, a pause for V8 to hand freed pages back,
 * a second GC (its live figures), then the RSS. Without the pause, pages freed by the first
 * collection leave only later, and the next reading comes out lower than it should.
 */
async function settledMemory(server: Child): Promise<MemoryReading> {
  await server.ask({ type: "memory" });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const collected = await server.ask({ type: "memory" });
  const report = await server.ask({ type: "rss" });
  if (report.type !== "rss" || collected.type !== "memory") {
    throw new Error("a benchmark server did not report its memory");
  }
  return {
    rss: report.rssBytes,
    live: (collected.heapUsedAfterGcBytes ?? 0) + (collected.externalAfterGcBytes ?? 0),
  };
}

/**
 * Opens `settings.streams` streams to `url` over `settings.openOverMs` and reads them all to the
 * end. With `server` (the hop being measured), its settled memory is read before, and again once
 * every stream has its first byte, and its CPU time over the whole run.
 */
async function measurePath(
  name: string,
  url: URL,
  model: string,
  settings: LongStreamsSettings,
  server: Child | null,
): Promise<PathResult> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  try {
    await warmUp(agent, url, model);
    const before = server ? await settledMemory(server) : null;
    const cpuBefore = server ? (await cpuMicros(server)).cpu : 0;
    let firstBytes = 0;
    let allOpen: () => void = () => {};
    const everyFirstByte = new Promise<void>((resolve) => {
      allOpen = resolve;
    });
    const onFirstByte = () => {
      firstBytes += 1;
      if (firstBytes === settings.streams) allOpen();
    };
    const body = requestBody(model, 256);
    const startedAt = performance.now();
    const running: Promise<StreamResult>[] = [];
    for (let i = 0; i < settings.streams; i++) {
      const dueAt = startedAt + (i * settings.openOverMs) / settings.streams;
      const waitMs = dueAt - performance.now();
      if (waitMs > 1) await new Promise((resolve) => setTimeout(resolve, waitMs));
      running.push(runStream(agent, url, body, onFirstByte));
    }
    await everyFirstByte;
    const open = server ? await settledMemory(server) : null;
    const results = await Promise.all(running);
    const cpuAfter = server ? (await cpuMicros(server)).cpu : 0;
    return {
      name,
      results,
      memory: before && open ? { before, open } : null,
      cpuPerStreamMicros: server ? (cpuAfter - cpuBefore) / settings.streams : null,
      ownTtfb: null,
    };
  } finally {
    await agent.close();
  }
}

/** p50 and p99 of the times in `values`, milliseconds (nulls left out). */
function ttfbOf(values: readonly (number | null)[]): { p50: number; p99: number } {
  const sorted = values.filter((ms): ms is number => ms !== null).sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}

function ttfbQuantiles(result: PathResult): { p50: number; p99: number } {
  return ttfbOf(result.results.map((stream) => stream.ttfbMs));
}

/**
 * The gateway at `baseUrl`'s own time to first byte over its newest `streams` records (the
 * newest {@link MAX_REQUESTS_LIMIT}, one read's most, when there are more): the streams just
 * measured, which all ended before this read (the warm-up's records are older).
 */
async function gatewayTtfb(
  baseUrl: string,
  streams: number,
): Promise<{ p50: number; p99: number }> {
  const wanted = Math.min(streams, MAX_REQUESTS_LIMIT);
  const response = await fetch(`${baseUrl}/v1/requests?limit=${wanted}`);
  if (!response.ok) throw new Error(`the gateway's request log answered ${response.status}`);
  const { data } = (await response.json()) as { data: { ttfbMs: number | null }[] };
  if (data.length < wanted) {
    throw new Error(`the gateway's request log holds ${data.length} of ${wanted} streams`);
  }
  return ttfbOf(data.map((record) => record.ttfbMs));
}

const LABELS: Partial<Record<GatewayVariant, string>> = {
  keyless: "planfirst, keyless",
  "paid-sqlite": "planfirst, paid rung, SQLite (default)",
};

/** Runs the long-stream benchmark with `settings` and prints its table and targets. */
export async function benchLongStreams(settings: LongStreamsSettings): Promise<void> {
  console.log(
    `Long streams: ${settings.streams} concurrent, opened over ${settings.openOverMs / 1000} s, ` +
      `${settings.chunks} chunks over ${settings.durationS} s each; one path at a time, each ` +
      "server in its own process, the load generator in this one.",
  );
  const upstream = await startChild([
    "slow-upstream",
    String(settings.chunks),
    String(settings.durationS),
  ]);
  const chatUrl = (base: string) => new URL(`${base}/chat/completions`);
  const paths: PathResult[] = [];
  try {
    paths.push(await measurePath("direct", chatUrl(upstream.url), "bench-model", settings, null));
    const proxy = await startChild(["raw-proxy", upstream.url], ["--expose-gc"]);
    try {
      paths.push(
        await measurePath(RAW, chatUrl(`${proxy.url}/v1`), "bench-model", settings, proxy),
      );
    } finally {
      await stopChild(proxy);
    }
    for (const variant of settings.variants) {
      const name = LABELS[variant] ?? variant;
      const gateway = await startChild(["gateway", upstream.url, variant], ["--expose-gc"]);
      try {
        const path = await measurePath(
          name,
          chatUrl(`${gateway.url}/v1`),
          "auto/thrifty",
          settings,
          gateway,
        );
        paths.push({ ...path, ownTtfb: await gatewayTtfb(gateway.url, settings.streams) });
      } finally {
        await stopChild(gateway);
      }
    }
  } finally {
    await stopChild(upstream);
  }
  printLongStreams(paths, settings);
}

const RAW = "raw node:http proxy";
const MIB = 1024 * 1024;

/** Growth per stream of one memory figure, bytes; null for the direct path. */
function perStream(path: PathResult, figure: keyof MemoryReading, streams: number): number | null {
  if (path.memory === null) return null;
  return (path.memory.open[figure] - path.memory.before[figure]) / streams;
}

function printLongStreams(paths: readonly PathResult[], settings: LongStreamsSettings): void {
  const { streams } = settings;
  const direct = ttfbQuantiles(paths[0]!);
  const raw = paths.find((path) => path.name === RAW)!;
  const rawTtfb = ttfbQuantiles(raw);
  const ratio = (value: number | null, base: number | null) =>
    value === null || base === null || base <= 0 ? "—" : `${(value / base).toFixed(2)}×`;
  const kib = (bytes: number | null) => (bytes === null ? "—" : (bytes / 1024).toFixed(1));
  const rawRss = perStream(raw, "rss", streams);
  const rawLive = perStream(raw, "live", streams);
  printTable(
    [
      "path",
      "completed",
      "TTFB p50 ms",
      "TTFB p99 ms",
      "added p50 ms",
      "added p99 ms",
      "RSS/stream KiB",
      "of raw",
      "live/stream KiB",
      "of raw",
      "CPU µs/stream",
      "of raw",
      "own TTFB p50 ms",
      "own TTFB p99 ms",
    ],
    paths.map((path) => {
      const ttfb = ttfbQuantiles(path);
      const completed = path.results.filter((stream) => stream.completed).length;
      const isDirect = path === paths[0];
      const rss = perStream(path, "rss", streams);
      const live = perStream(path, "live", streams);
      return [
        path.name,
        `${completed}/${streams}`,
        ttfb.p50.toFixed(1),
        ttfb.p99.toFixed(1),
        isDirect ? "—" : (ttfb.p50 - direct.p50).toFixed(1),
        isDirect ? "—" : (ttfb.p99 - direct.p99).toFixed(1),
        kib(rss),
        ratio(rss, rawRss),
        kib(live),
        ratio(live, rawLive),
        path.cpuPerStreamMicros === null ? "—" : path.cpuPerStreamMicros.toFixed(0),
        ratio(path.cpuPerStreamMicros, raw.cpuPerStreamMicros),
        path.ownTtfb ? path.ownTtfb.p50.toFixed(1) : "—",
        path.ownTtfb ? path.ownTtfb.p99.toFixed(1) : "—",
      ];
    }),
  );
  const rawAddedP99 = rawTtfb.p99 - direct.p99;
  const mb = (reading: MemoryReading) => (reading.rss / MIB).toFixed(1);
  for (const path of paths.filter((entry) => entry.memory !== null)) {
    const completed = path.results.filter((stream) => stream.completed).length;
    const addedP99 = ttfbQuantiles(path).p99 - direct.p99;
    const limit = 2 * Math.max(0, rawAddedP99) + 100;
    const memory = path.memory!;
    const targets =
      path === raw
        ? ""
        : `; memory per open stream ${ratio(perStream(path, "rss", streams), rawRss)} the raw ` +
          `proxy's in RSS, ${ratio(perStream(path, "live", streams), rawLive)} live ` +
          `(target ≤ 2×), CPU per stream ` +
          `${ratio(path.cpuPerStreamMicros, raw.cpuPerStreamMicros)} (target ≤ 2.5×), added TTFB ` +
          `p99 ${addedP99.toFixed(1)} ms (target ≤ 2 × ${rawAddedP99.toFixed(1)} + 100 = ` +
          `${limit.toFixed(1)} ms)`;
    console.log(
      `${path.name}: ${completed}/${streams} completed, RSS ${mb(memory.before)} → ` +
        `${mb(memory.open)} MB${targets}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchLongStreams(longStreamsSettings());
}
