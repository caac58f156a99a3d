import {
  createGateway,
  createLogger,
  createRoutingTable,
  explainModel,
  explainSourceOf,
  parseConfig,
} from "@planfirst/gateway";
import { afterEach, describe, expect, it } from "vitest";
import { createMeteredPriceLookup } from "./metered-price";
import { parsePlanAllowances } from "./plan-allowance";
import { replayTrace } from "./replay";
import type { TraceRecord } from "./trace-record";

const BUDGETS = { cheap: 10, premium: 10 };

/**
 * Two Claude plan logins in one (provider, model) group, listed a before b, each holding three
 * requests per 5-hour window; a cheap and a premium metered rung behind them. Budgets are large
 * enough never to gate a rung, so the quota readings alone decide the order.
 */
const CONFIG = parseConfig({
  storage: { driver: "memory" },
  connections: [
    plan("claude-a", "env:SIM_CLAUDE_A_TOKEN"),
    plan("claude-b", "env:SIM_CLAUDE_B_TOKEN"),
    {
      id: "openrouter",
      provider: "openrouter",
      authType: "apikey",
      protocol: "openai",
      baseUrl: "http://127.0.0.1:2/v1",
      credential: "env:SIM_OPENROUTER_KEY",
      models: ["qwen/qwen3-coder"],
    },
    {
      id: "anthropic-api",
      provider: "anthropic",
      authType: "apikey",
      protocol: "anthropic",
      baseUrl: "http://127.0.0.1:3",
      credential: "env:SIM_ANTHROPIC_KEY",
      models: ["claude-sonnet-4-5"],
    },
  ],
  catalog: {
    connections: [
      {
        provider: "claude",
        authType: "oauth",
        billing: "subscription",
        overage: "hard-stop",
        reason: "test plan that stops at its limit",
        sources: ["https://example.com/terms"],
        reviewed: "2026-11-01",
      },
    ],
    models: [
      { provider: "openrouter", model: "qwen/qwen3-coder", inputPerMTok: 0.2, outputPerMTok: 0.8 },
      { provider: "anthropic", model: "claude-sonnet-4-5", inputPerMTok: 3, outputPerMTok: 15 },
    ],
  },
  subscriptionLadder: {
    rungBudgetUsd: BUDGETS,
    budgetWindow: "day",
    // The replay holds a plan's reading fresh for as long as it serves (every plan response
    // carries one); the gateway here only has the readings handed to it, so they must not age
    // out between requests for both to read the same quota.
    maxStateAgeMs: 86_400_000,
  },
});

const ENV = {
  SIM_CLAUDE_A_TOKEN: "sk-ant-oat01-simulated-plan-a",
  SIM_CLAUDE_B_TOKEN: "sk-ant-oat01-simulated-plan-b",
  SIM_OPENROUTER_KEY: "sk-or-simulated-key",
  SIM_ANTHROPIC_KEY: "sk-ant-api03-simulated-key",
};

function plan(id: string, credential: string) {
  return {
    id,
    provider: "claude",
    authType: "oauth",
    protocol: "anthropic",
    baseUrl: "http://127.0.0.1:1",
    credential,
    models: ["claude-sonnet-4-5"],
  };
}

/** One request at `hhmm` UTC on 2026-11-02 worth $0.45 at the Sonnet price: a third of a window. */
function request(hhmm: string): TraceRecord {
  return {
    timeMs: Date.parse(`2026-11-02T${hhmm}:00Z`),
    model: "claude-sonnet-4-5",
    inputTokens: 100_000,
    outputTokens: 10_000,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    source: "generic",
  };
}

// 09:00–09:20 spend a's window (it resets at 14:00); 09:30 opens b's (it resets at 14:30).
// At 14:10 a is fresh again and b still has two thirds left: b resets sooner, so b goes first
// though a is listed first. 14:20 spends b, 14:22–14:26 spend a, 14:28 finds both spent, and
// 14:35 finds b reset.
const TRACE = [
  "09:00",
  "09:10",
  "09:20",
  "09:30",
  "14:10",
  "14:20",
  "14:22",
  "14:24",
  "14:26",
  "14:28",
  "14:35",
].map(request);

type Step = { connection: string; model: string; rung: string }[];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * Replays the trace for `id` and, at each request, asks a running gateway over the same config
 * for its targets (what `/v1/ladder` answers), the gateway's quota cache fed every reading the
 * replay took, at the instant it took it.
 */
async function replayBesideGateway(id: string): Promise<{ simulator: Step[]; gateway: Step[] }> {
  let nowMs = TRACE[0]!.timeMs;
  const gateway = createGateway({
    config: CONFIG,
    env: ENV,
    now: () => nowMs,
    logger: createLogger({ level: "silent" }),
    pollUsage: false,
    resetTimers: false,
  });
  closers.push(() => gateway.close());
  await gateway.ready();
  const source = explainSourceOf(gateway.context);

  const table = createRoutingTable(CONFIG, {
    credentials: new Map(CONFIG.connections.map((connection) => [connection.id, null])),
    disabledConnections: new Map(),
    clientKeys: [],
    warnings: [],
  });
  const allowances = parsePlanAllowances("claude-a=1.35usd/5h,claude-b=1.35usd/5h");
  if (!allowances.ok) throw new Error(allowances.problems.join("; "));
  const simulator: Step[] = [];
  const fromGateway: Step[] = [];
  await replayTrace({
    config: CONFIG,
    table,
    id,
    records: TRACE,
    allowances: new Map(
      ["claude-a", "claude-b"].map((connectionId) => [
        connectionId,
        allowances.allowances.filter((allowance) => allowance.target === connectionId),
      ]),
    ),
    rungBudgetUsd: BUDGETS,
    meteredPriceOf: createMeteredPriceLookup(table.catalog.models),
    bucketMs: 3_600_000,
    observer: {
      reading(connectionId, windows, atMs) {
        nowMs = atMs;
        gateway.deps.quotaCache.observe(connectionId, [...windows]);
      },
      targets(record, targets) {
        nowMs = record.timeMs;
        simulator.push(
          targets.map((target) => ({
            connection: target.connection.config.id,
            model: target.model,
            rung: target.rung,
          })),
        );
        fromGateway.push(
          explainModel(source, id).targets.map((target) => ({
            connection: target.connection,
            model: target.model,
            rung: target.rung,
          })),
        );
      },
    },
  });
  return { simulator, gateway: fromGateway };
}

const at = (hhmm: string) => TRACE.findIndex((record) => record.timeMs === request(hhmm).timeMs);

describe("the simulator and the gateway pick the same targets (THR3)", () => {
  it("auto/thrifty: the plan resetting soonest first inside its group, then cheap, then premium", async () => {
    const { simulator, gateway } = await replayBesideGateway("auto/thrifty");
    expect(simulator).toHaveLength(TRACE.length);
    expect(simulator).toEqual(gateway);
    const connections = (step: Step) => step.map((target) => target.connection);
    expect(connections(simulator[at("09:00")]!)).toEqual([
      "claude-a",
      "claude-b",
      "openrouter",
      "anthropic-api",
    ]);
    expect(connections(simulator[at("14:10")]!)).toEqual([
      "claude-b",
      "claude-a",
      "openrouter",
      "anthropic-api",
    ]);
    expect(simulator[at("14:28")]).toEqual([
      { connection: "openrouter", model: "qwen/qwen3-coder", rung: "cheap" },
      { connection: "anthropic-api", model: "claude-sonnet-4-5", rung: "premium" },
    ]);
  });

  it("auto/subscription: the same plans in the same order, and nothing once both are spent", async () => {
    const { simulator, gateway } = await replayBesideGateway("auto/subscription");
    expect(simulator).toHaveLength(TRACE.length);
    expect(simulator).toEqual(gateway);
    expect(simulator[at("14:10")]!.map((target) => target.connection)).toEqual([
      "claude-b",
      "claude-a",
    ]);
    expect(simulator[at("14:28")]).toEqual([]);
  });
});
