import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConnectionBillingEntry } from "@planfirst/billing-catalog";
import { parseConfig } from "../src/config/load-config";
import type { GatewayConfigInput } from "../src/config/schema";
import { startServer } from "../src/server";
import { BENCH_REDIS_URL, deleteBenchKeys } from "./bench-redis";

/**
 * The gateway set-ups the load benchmark compares, each routing `auto/thrifty` to one
 * connection on the instant upstream:
 * - `plan`: a coding plan of its own (`bench-plan`, served by the generic openai connector; an
 *   operator entry makes it a hard-stop subscription: rung 0, no ledger call);
 * - `plan-no-affinity`: the same with session affinity off (`idleTtlMs: 0`), so the cost of the
 *   session lookup on every request is the difference between the two rows;
 * - `keyless`: a keyless local server (ollama, authType none; no ledger call);
 * - `paid-sqlite`, `paid-memory`, `paid-redis`: an OpenRouter key on a priced model (the cheap
 *   rung, budgeted), so every request reserves its worst case before the upstream call and
 *   settles after, on the default SQLite store, the memory store, or Redis (REDIS_URL).
 * Every variant keeps the request log, as a default gateway does; `BENCH_REQUEST_LOG=0` turns it
 * off, to measure what it costs.
 */
export const GATEWAY_VARIANTS = [
  "plan",
  "plan-no-affinity",
  "keyless",
  "paid-sqlite",
  "paid-memory",
  "paid-redis",
] as const;

/** One of {@link GATEWAY_VARIANTS}. */
export type GatewayVariant = (typeof GATEWAY_VARIANTS)[number];

/** A benchmark gateway on 127.0.0.1, its state in a temporary directory (and Redis prefix). */
export interface BenchGateway {
  readonly url: string;
  close(): Promise<void>;
}

// Fake keys: the instant upstream reads none of them.
const ENV = { BENCH_PLAN_KEY: "bench-plan-key", BENCH_PAID_KEY: "bench-paid-key" };

function connectionFor(
  variant: GatewayVariant,
  upstreamUrl: string,
): GatewayConfigInput["connections"] {
  if (variant === "plan" || variant === "plan-no-affinity") {
    return [
      {
        id: "bench-plan",
        provider: "bench-plan",
        authType: "apikey",
        protocol: "openai",
        baseUrl: upstreamUrl,
        credential: "env:BENCH_PLAN_KEY",
        models: ["bench-model"],
      },
    ];
  }
  if (variant === "keyless") {
    return [
      {
        id: "local",
        provider: "ollama",
        authType: "none",
        protocol: "openai",
        baseUrl: upstreamUrl,
        models: ["bench-model"],
      },
    ];
  }
  return [
    {
      id: "openrouter",
      provider: "openrouter",
      authType: "apikey",
      protocol: "openai",
      baseUrl: upstreamUrl,
      credential: "env:BENCH_PAID_KEY",
      models: ["qwen/qwen3-coder"],
    },
  ];
}

/** The operator's entry that puts the `plan` variant's provider on rung 0. */
export const BENCH_PLAN_ENTRY: ConnectionBillingEntry = {
  provider: "bench-plan",
  billing: "subscription",
  overage: "hard-stop",
  reason: "benchmark: a flat-rate plan that stops at its limit and never bills past it",
  sources: ["https://example.invalid/bench-plan-terms"],
  reviewed: "2026-12-03",
};

/**
 * The config of `variant` in front of `upstreamUrl` over `storage`, at the default log level
 * (nothing is logged per routed request), with session affinity on (the default) unless the
 * variant or `BENCH_AFFINITY=off` turns it off.
 */
export function benchConfig(
  variant: GatewayVariant,
  upstreamUrl: string,
  storage: GatewayConfigInput["storage"],
): GatewayConfigInput {
  return {
    server: {
      port: 0,
      logLevel: "info",
      requestLog: { enabled: process.env.BENCH_REQUEST_LOG !== "0" },
    },
    storage,
    connections: connectionFor(variant, upstreamUrl),
    catalog: {
      connections: variant === "plan" || variant === "plan-no-affinity" ? [BENCH_PLAN_ENTRY] : [],
    },
    subscriptionLadder: {
      // A budget far above what the run spends: every request reserves and settles, none refused.
      rungBudgetUsd: { cheap: 1_000_000 },
      // BENCH_AFFINITY=off runs every variant without sessions, for a before/after of each path.
      sessionAffinity: {
        idleTtlMs:
          variant === "plan-no-affinity" || process.env.BENCH_AFFINITY === "off" ? 0 : 3_600_000,
      },
    },
  };
}

/** Starts the gateway of `variant` in front of `upstreamUrl`, at the default log level. */
export async function startBenchGateway(
  variant: GatewayVariant,
  upstreamUrl: string,
): Promise<BenchGateway> {
  if (!GATEWAY_VARIANTS.includes(variant)) {
    throw new Error(`unknown gateway variant "${variant}": ${GATEWAY_VARIANTS.join(", ")}`);
  }
  const dir = mkdtempSync(join(tmpdir(), "planfirst-bench-"));
  const keyPrefix = `planfirst-bench-${process.pid}:`;
  const storage: GatewayConfigInput["storage"] =
    variant === "paid-memory"
      ? { driver: "memory" }
      : variant === "paid-redis"
        ? { driver: "redis", url: BENCH_REDIS_URL, keyPrefix, journalPath: join(dir, "journal.db") }
        : { driver: "sqlite", path: join(dir, "state.db") };
  const config = parseConfig(benchConfig(variant, upstreamUrl, storage));
  const gateway = await startServer({ config, env: ENV, print: () => undefined, pollUsage: false });
  await gateway.gateway.ready();
  return {
    url: gateway.url,
    async close() {
      await gateway.close();
      if (variant === "paid-redis") await deleteBenchKeys(keyPrefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
