import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { median, printTable } from "@planfirst/bench";
import { type Child, type ChildSource, cpuMicros, startChild, stopChild } from "./child-process";
import { GATEWAY_VARIANTS, type GatewayVariant } from "./gateway-variants";
import { chatRequestBody, loadChat } from "./request-load";

// Two gateways side by side, loaded at the same time: a before/after of one change, or two
// variants, that the full benchmark cannot resolve. On a shared host whose speed swings from one
// minute to the next, two runs one after the other differ by more than a change of a few per
// cent; two gateways loaded together see the same host at every instant, so their ratio holds
// still. After one round unmeasured (the JIT's work done), each round loads both for --seconds
// with --connections each; the table gives each round's requests, CPU per request (every
// thread; on Linux also the event loop's thread and the others apart) and the ratio B/A, then
// the medians. The two compete for the same cores: read the ratio and the CPU per request, not
// the requests per second against the full benchmark's. From apps/gateway:
//
//   pnpm bench:compare --a paid-memory --b paid-sqlite
//   pnpm bench:compare --a-root ../before --a keyless --b keyless
//   pnpm bench:compare --a keyless --a-env BENCH_REQUEST_LOG=0 --b keyless
//
// --a, --b: gateway variants (gateway-variants.ts; default paid-sqlite, B defaults to A's).
// --a-root, --b-root: another checkout of this repository, its dependencies installed, whose own
// bench/child.ts serves that side (default this checkout). --a-env, --b-env NAME=VALUE (repeat):
// that side's environment on top of this one. --seconds (4), --rounds (8), --connections (32),
// --stream.

const { values: options } = parseArgs({
  options: {
    a: { type: "string", default: "paid-sqlite" },
    b: { type: "string" },
    "a-root": { type: "string" },
    "b-root": { type: "string" },
    "a-env": { type: "string", multiple: true, default: [] },
    "b-env": { type: "string", multiple: true, default: [] },
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "8" },
    connections: { type: "string", default: "32" },
    stream: { type: "boolean", default: false },
  },
});

/** A positive whole number from option `name`, or a clear error. */
function count(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`--${name} must be a whole number of at least 1, not "${text}"`);
  }
  return value;
}

/** Variant `name` checked against the known ones. */
function variantOf(side: string, name: string): GatewayVariant {
  if (!GATEWAY_VARIANTS.includes(name as GatewayVariant)) {
    throw new Error(`--${side} "${name}" is not a variant: ${GATEWAY_VARIANTS.join(", ")}`);
  }
  return name as GatewayVariant;
}

/** This process's environment with `NAME=VALUE` settings on top. */
function envWith(side: string, settings: readonly string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const setting of settings) {
    const at = setting.indexOf("=");
    if (at < 1) throw new Error(`--${side}-env takes NAME=VALUE, not "${setting}"`);
    env[setting.slice(0, at)] = setting.slice(at + 1);
  }
  return env;
}

/**
 * CPU time used so far by each thread of process `pid`, µs by thread id; null where `/proc` does
 * not say (not Linux). Times are counted in clock ticks of 10 ms (Linux's USER_HZ), so a
 * thread's figure is exact only over a few seconds.
 */
function threadCpuMicros(pid: number): Map<string, number> | null {
  try {
    const threads = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      // Fields after the command name, which may hold spaces: utime and stime are the 12th
      // and 13th of them.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(tid, (Number(fields[11]) + Number(fields[12])) * 10_000);
    }
    return threads;
  } catch {
    return null;
  }
}

interface Sample {
  requests: number;
  cpuPerRequest: number;
  /** The event loop's thread and every other thread, µs per request; null without `/proc`. */
  mainPerRequest: number | null;
  othersPerRequest: number | null;
  non2xx: number;
}

const seconds = count("seconds", options.seconds);
const rounds = count("rounds", options.rounds);
const connections = count("connections", options.connections);
/** Each side's variant, its checkout (undefined: this one) and its settings, as given. */
const plans = [
  ["a", variantOf("a", options.a), options["a-root"], options["a-env"]],
  ["b", variantOf("b", options.b ?? options.a), options["b-root"], options["b-env"]],
] as const;
/** Each side's child source, checked before anything starts. */
const sources = plans.map(([side, , root, env]): ChildSource => {
  const environment = envWith(side, env);
  return root === undefined ? { env: environment } : { root, env: environment };
});
const body = chatRequestBody("auto/thrifty", options.stream);

/** Loads `child` for --seconds. */
const load = (child: Child) =>
  loadChat(`${child.url}/v1/chat/completions`, body, connections, { duration: seconds });

/** Loads `child` for one round and measures what its process used meanwhile. */
async function measureRound(child: Child): Promise<Sample> {
  const pid = child.process.pid!;
  const cpuBefore = await cpuMicros(child);
  const threadsBefore = threadCpuMicros(pid);
  const result = await load(child);
  const cpuAfter = await cpuMicros(child);
  const threadsAfter = threadCpuMicros(pid);
  const requests = Math.max(1, result.requests.total);
  let mainPerRequest: number | null = null;
  let othersPerRequest: number | null = null;
  if (threadsBefore && threadsAfter) {
    let others = 0;
    for (const [tid, micros] of threadsAfter) {
      const used = micros - (threadsBefore.get(tid) ?? 0);
      if (tid === String(pid)) mainPerRequest = used / requests;
      else others += used;
    }
    othersPerRequest = others / requests;
  }
  return {
    requests,
    cpuPerRequest: (cpuAfter.cpu - cpuBefore.cpu) / requests,
    mainPerRequest,
    othersPerRequest,
    non2xx: result.non2xx,
  };
}

const upstream = await startChild(["upstream"]);
const sides: Child[] = [];
try {
  for (const [index, [side, variant, root, env]] of plans.entries()) {
    sides.push(await startChild(["gateway", upstream.url, variant], [], sources[index]));
    const from = [variant, root && `from ${root}`, env.join(" ")].filter(Boolean).join(", ");
    console.log(`${side.toUpperCase()}: ${from}`);
  }
  // One round unmeasured, so that both have reached their steady state (the JIT's work done).
  await Promise.all(sides.map(load));
  const samples: [Sample, Sample][] = [];
  for (let round = 0; round < rounds; round++) {
    await sleep(300);
    const [a, b] = await Promise.all(sides.map(measureRound));
    samples.push([a!, b!]);
  }
  const micros = (value: number | null) => (value === null ? "—" : value.toFixed(1));
  const cells = (sample: Sample) => [
    String(Math.round(sample.requests)),
    micros(sample.cpuPerRequest),
    micros(sample.mainPerRequest),
    micros(sample.othersPerRequest),
  ];
  /** The median of each figure of one side over the rounds (null when `/proc` said nothing). */
  const medianSample = (side: 0 | 1): Sample => {
    const of = (pick: (sample: Sample) => number | null) => {
      const values = samples.map((pair) => pick(pair[side]));
      return values.includes(null) ? null : median(values as number[]);
    };
    return {
      requests: of((sample) => sample.requests)!,
      cpuPerRequest: of((sample) => sample.cpuPerRequest)!,
      mainPerRequest: of((sample) => sample.mainPerRequest),
      othersPerRequest: of((sample) => sample.othersPerRequest),
      non2xx: 0,
    };
  };
  const ratio = (a: Sample, b: Sample) => b.requests / a.requests;
  const [medianA, medianB] = [medianSample(0), medianSample(1)];
  const mode = options.stream ? "stream" : "non-stream";
  console.log(
    `\n${connections} connections to each, ${rounds} rounds of ${seconds} s, ${mode}; CPU in µs per request (loop = the event loop's thread, others = every other thread)\n`,
  );
  printTable(
    [
      "round",
      "A req",
      "A CPU",
      "A loop",
      "A others",
      "B req",
      "B CPU",
      "B loop",
      "B others",
      "B/A req",
      "non-2xx",
    ],
    [
      ...samples.map(([a, b], index) => [
        String(index + 1),
        ...cells(a),
        ...cells(b),
        ratio(a, b).toFixed(3),
        String(a.non2xx + b.non2xx),
      ]),
      [
        "median",
        ...cells(medianA),
        ...cells(medianB),
        median(samples.map(([a, b]) => ratio(a, b))).toFixed(3),
        "—",
      ],
    ],
  );
} finally {
  for (const child of sides) await stopChild(child);
  await stopChild(upstream);
}
