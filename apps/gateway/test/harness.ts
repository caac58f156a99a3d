import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { type FakeUpstream, startFakeUpstream, type WireProtocol } from "@planfirst/fake-upstream";
import type { SpendLedger } from "@planfirst/spend-ledger";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll } from "vitest";
import { parseConfig } from "../src/config/load-config";
import type { GatewayConfigInput } from "../src/config/schema";
import type { OnboardingPoll } from "../src/connectors/connector-spec";
import { createLogger } from "../src/observability/logger";
import { type RunningServer, startServer } from "../src/server";

/** An injected clock the tests move by hand. Epoch milliseconds. */
export interface TestClock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

/** Starts at 2026-11-30T10:00:00Z. */
export function createClock(startMs = Date.parse("2026-11-30T10:00:00Z")): TestClock {
  let t = startMs;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(ms) {
      t = ms;
    },
  };
}

/** Operator entry that makes a Claude OAuth login a verified hard-stop plan (extra usage off). */
export const CLAUDE_HARD_STOP_ENTRY = {
  provider: "claude",
  authType: "oauth",
  billing: "subscription" as const,
  overage: "hard-stop" as const,
  reason: "test: extra usage is turned off on this account, so the plan stops at its limit",
  sources: ["https://support.claude.com/"],
  reviewed: "2026-11-30",
};

/** A gateway on loopback port 0 with its log lines captured. */
export interface Harness {
  server: RunningServer;
  url: string;
  clock: TestClock;
  logs: string[];
  /** The config file the gateway started from (with `configFile`), else null. */
  configPath: string | null;
  /**
   * Writes `config` to the config file, with the same storage and server address as at start
   * (so a reload of it changes nothing that needs a restart); throws without `configFile`.
   */
  writeConfig(config: GatewayConfigInput): void;
  close(): Promise<void>;
}

/** What {@link startHarness} starts a gateway with. */
export interface HarnessOptions {
  config: GatewayConfigInput;
  /** Variables the config's `env:` references read (default none). */
  env?: Record<string, string>;
  /** Default: a fresh {@link createClock}. */
  clock?: TestClock;
  /** Default: SQLite in a temporary directory removed on close. */
  storage?: GatewayConfigInput["storage"];
  /**
   * Start from a config file (`config.json` in the gateway's temporary directory) rather than
   * from the config in memory, so a reload re-reads it. Default false.
   */
  configFile?: boolean;
  /** How account setups are polled (Code Assist onboarding); default the gateway's. */
  onboardingPoll?: OnboardingPoll;
}

/**
 * Starts a gateway on 127.0.0.1:0 over a temporary SQLite file (the default store), with the
 * injected clock, usage polls on demand only, and every log line captured.
 */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const clock = options.clock ?? createClock();
  const dir = mkdtempSync(join(tmpdir(), "planfirst-gateway-"));
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const document = (input: GatewayConfigInput): GatewayConfigInput => ({
    ...input,
    // Each gateway keeps its own settle journal, as replicas on two machines do: a journal file
    // has one owning process.
    storage: options.storage
      ? { journalPath: join(dir, "spend-journal.db"), ...options.storage }
      : {
          driver: "sqlite",
          path: join(dir, "state.db"),
          journalPath: join(dir, "spend-journal.db"),
        },
    server: { ...input.server, port: 0, host: "127.0.0.1", logLevel: "debug" },
  });
  const configPath = options.configFile ? join(dir, "config.json") : null;
  const writeConfig = (input: GatewayConfigInput) => {
    if (!configPath) throw new Error("this gateway was not started from a config file");
    writeFileSync(configPath, JSON.stringify(document(input), null, 2));
  };
  if (configPath) writeConfig(options.config);
  const config = parseConfig(document(options.config));
  const server = await startServer({
    ...(configPath ? { configPath } : {}),
    config,
    env: options.env ?? {},
    now: clock.now,
    logger: createLogger({ level: "debug", destination }),
    print: () => undefined,
    pollUsage: false,
    usagePollJitterMs: 0,
    onboardingPoll: options.onboardingPoll,
  });
  return {
    server,
    url: server.url,
    clock,
    logs,
    configPath,
    writeConfig,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** How many WebSocket handshakes a gateway refused (426), counted in its captured log lines. */
export function refusedUpgrades(logs: readonly string[]): number {
  return logs.filter((line) => line.includes("websocket upgrade refused")).length;
}

/** Starts fake upstreams by name. */
export async function startFakes<const N extends string>(
  specs: Record<N, WireProtocol>,
): Promise<Record<N, FakeUpstream>> {
  const entries = await Promise.all(
    Object.entries(specs).map(async ([name, protocol]) => [
      name,
      await startFakeUpstream({ protocol: protocol as WireProtocol, name }),
    ]),
  );
  return Object.fromEntries(entries) as Record<N, FakeUpstream>;
}

/** The fake upstreams of a test file and the gateways its tests run against. */
export interface TestBed<N extends string> {
  /** The file's fake upstreams, started before its first test and closed after its last. */
  readonly fakes: Record<N, FakeUpstream>;
  /**
   * The gateway the running test last started with {@link TestBed.start}, else the file's
   * gateway; throws when there is neither.
   */
  readonly harness: Harness;
  /** Starts a gateway ({@link startHarness}) that is closed when the running test ends. */
  start(options: HarnessOptions): Promise<Harness>;
}

/**
 * Registers the hooks of a gateway test file: `specs` names the fake upstreams to start before
 * the first test (and close after the last). By default each test starts its own gateways with
 * `start`; after each test they are closed and every fake is reset (scripts, usage replies and
 * hits). With `gateway`, one gateway is started from the fakes before the first test and closed
 * after the last, and the fakes are not reset between tests: such a file's tests share that
 * gateway's state, so they share the fakes' too.
 */
export function useTestBed<const N extends string>(
  specs: Record<N, WireProtocol>,
  options: { gateway?: (fakes: Record<N, FakeUpstream>) => HarnessOptions } = {},
): TestBed<N> {
  let fakes: Record<N, FakeUpstream> | undefined;
  let fileHarness: Harness | undefined;
  let testHarnesses: Harness[] = [];
  const allFakes = () => (fakes ? Object.values<FakeUpstream>(fakes) : []);

  beforeAll(async () => {
    fakes = await startFakes(specs);
    if (options.gateway) fileHarness = await startHarness(options.gateway(fakes));
  });
  afterEach(async () => {
    await Promise.all(testHarnesses.map((harness) => harness.close()));
    testHarnesses = [];
    if (!options.gateway) for (const fake of allFakes()) fake.reset();
  });
  afterAll(async () => {
    await fileHarness?.close();
    await Promise.all(allFakes().map((fake) => fake.close()));
  });

  return {
    get fakes() {
      if (!fakes) throw new Error("the fake upstreams start in beforeAll");
      return fakes;
    },
    get harness() {
      const harness = testHarnesses.at(-1) ?? fileHarness;
      if (!harness) throw new Error("no gateway is running: start one first");
      return harness;
    },
    async start(harnessOptions) {
      const harness = await startHarness(harnessOptions);
      testHarnesses.push(harness);
      return harness;
    },
  };
}

/** POSTs JSON to the gateway. */
export function post(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** A minimal OpenAI chat body. */
export function chatBody(model: string, extra: Record<string, unknown> = {}) {
  return { model, messages: [{ role: "user", content: "hello" }], max_tokens: 16, ...extra };
}

/** A minimal Anthropic messages body. */
export function messagesBody(model: string, extra: Record<string, unknown> = {}) {
  return { model, max_tokens: 16, messages: [{ role: "user", content: "hello" }], ...extra };
}

/** GETs a path of the gateway and parses the JSON answer. */
export async function getJson<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`);
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * Polls `condition` every 10 ms until it holds or `timeoutMs` (real time) passes. Only for
 * things that settle on their own shortly (pub/sub propagation, a socket closing), never for
 * a quota reset: time is injected.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 3_000, what = "condition" }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** The gateway's spend ledger (the full ledger, records included). */
export function ledgerOf(harness: Harness): SpendLedger {
  return harness.server.gateway.deps.ledger as SpendLedger;
}

/** The test Redis server: `REDIS_URL`, else the local default. */
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Redis storage under a fresh random key prefix, so parallel runs never share state. */
export function redisStorage(keyPrefix = `planfirst-test:${randomUUID()}:`): {
  driver: "redis";
  url: string;
  keyPrefix: string;
} {
  return { driver: "redis", url: REDIS_URL, keyPrefix };
}

/** Deletes every Redis key that contains `keyPrefix` (the spend store wraps it in braces). */
export async function deleteRedisKeys(keyPrefix: string): Promise<void> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `*${keyPrefix}*`, "COUNT", 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

/** A TCP relay in front of a fake upstream that sees every socket the gateway opens and closes. */
export interface SocketWatch {
  /** The fake's base URL, through the relay. */
  url: string;
  /** Sockets the gateway opened to the relay. */
  readonly opened: number;
  /** Sockets the gateway closed (or reset) while the upstream still held them open. */
  readonly closedByGateway: number;
  close(): Promise<void>;
}

/**
 * Starts a TCP relay on 127.0.0.1 that forwards to `fake`, so a test can tell when the gateway
 * drops its upstream socket (an aborted upstream request) without the fake having to report it.
 */
export async function watchSockets(fake: FakeUpstream): Promise<SocketWatch> {
  const target = new URL(fake.origin);
  const sockets = new Set<Socket>();
  let opened = 0;
  let closedByGateway = 0;
  const server = createTcpServer((client) => {
    opened++;
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let upstreamClosed = false;
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
    upstream.on("close", () => {
      upstreamClosed = true;
      sockets.delete(upstream);
      client.destroy();
    });
    client.on("close", () => {
      sockets.delete(client);
      if (!upstreamClosed) closedByGateway++;
      upstream.destroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: fake.url.replace(fake.origin, `http://127.0.0.1:${port}`),
    get opened() {
      return opened;
    },
    get closedByGateway() {
      return closedByGateway;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
