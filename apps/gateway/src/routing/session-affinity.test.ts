import {
  createCooldownBook,
  createMemoryQuotaStore,
  createQuotaCache,
  type QuotaWindow,
  type UpstreamFailureKind,
} from "@planfirst/quota-cache";
import { createMemorySpendStore, createSpendLedger, isRefusal } from "@planfirst/spend-ledger";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../config/load-config";
import { resolveSecrets } from "../config/secrets";
import type { GatewayDeps } from "../deps";
import { createDispatcher } from "../dispatch/dispatcher";
import { createLogger } from "../observability/logger";
import { createMetrics } from "../observability/metrics";
import { createUpstreamClient } from "../upstream";
import { buildTargets, type DispatchTarget } from "./build-pool";
import type { ClientIdentity } from "./client-identity";
import type { ResolvedModel } from "./pool-cache";
import { createRoutingTable } from "./routing-table";
import {
  affinityOrder,
  type PinnedTarget,
  pinnedTargetOut,
  placeSession,
  targetInAffinityOrder,
} from "./session-affinity";

const T0 = Date.parse("2026-11-30T10:00:00Z");
const HOUR = 3_600_000;
const ENV = { PLAN_A: "a", PLAN_B: "b", CHEAP: "c", PREMIUM: "p" };

/** Two hard-stop plan logins, a keyless server, one cheap model through two keys, one premium. */
const CONFIG = parseConfig({
  connections: [
    plan("plan-a", "PLAN_A"),
    plan("plan-b", "PLAN_B"),
    {
      id: "local",
      provider: "ollama",
      authType: "none",
      protocol: "openai",
      baseUrl: "http://127.0.0.1:1/v1",
      models: ["qwen2.5-coder:7b"],
    },
    metered("cheap-1", "vendor/coder", "CHEAP"),
    metered("cheap-2", "vendor/coder", "CHEAP"),
    metered("premium", "vendor/coder-max", "PREMIUM"),
  ],
  catalog: {
    connections: [
      {
        provider: "claude",
        authType: "oauth",
        billing: "subscription",
        overage: "hard-stop",
        reason: "test: extra usage is off on these accounts",
        sources: ["https://support.claude.com/"],
        reviewed: "2026-11-30",
      },
    ],
    models: [
      { provider: "openrouter", model: "vendor/coder", inputPerMTok: 0.1, outputPerMTok: 0.3 },
      { provider: "openrouter", model: "vendor/coder-max", inputPerMTok: 3, outputPerMTok: 15 },
    ],
  },
  categories: { coding: ["claude-*", "vendor/*"] },
  subscriptionLadder: { rungBudgetUsd: { cheap: 1, premium: 2 } },
});

function plan(id: string, env: string) {
  return {
    id,
    provider: "claude",
    authType: "oauth",
    protocol: "anthropic" as const,
    baseUrl: "http://127.0.0.1:1",
    credential: `env:${env}`,
    models: ["claude-sonnet-4-5"],
  };
}

function metered(id: string, model: string, env: string) {
  return {
    id,
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl: "http://127.0.0.1:1/v1",
    credential: `env:${env}`,
    models: [model],
  };
}

/** Every (connection, model) pair a session could be pinned to, and one that is not configured. */
const PINS: readonly PinnedTarget[] = [
  ...CONFIG.connections.flatMap((connection) =>
    connection.models.map((model) => ({ connectionId: connection.id, model })),
  ),
  { connectionId: "gone", model: "claude-sonnet-4-5" },
];
const IDS = ["auto/subscription", "auto/thrifty", "auto/coding:thrifty", "vendor/coder"];
const KINDS: readonly UpstreamFailureKind[] = [
  "rate_limited",
  "window_exhausted",
  "overloaded",
  "auth_invalid",
];
const PLANS = ["plan-a", "plan-b"];
const COOLABLE = CONFIG.connections.map((connection) => connection.id);
const SCOPED: ClientIdentity = { id: "scoped", connections: new Set(["plan-a", "cheap-2"]) };
const EVERYONE: ClientIdentity = { id: "everyone", connections: null };

const step = fc.oneof(
  fc.record({
    kind: fc.constant("reading" as const),
    connection: fc.constantFrom(...PLANS),
    usedPercent: fc.integer({ min: 0, max: 100 }),
    resetInMs: fc.integer({ min: 60_000, max: 5 * HOUR }),
  }),
  fc.record({
    kind: fc.constant("cooldown" as const),
    connection: fc.constantFrom(...COOLABLE),
    failure: fc.constantFrom(...KINDS),
  }),
  fc.record({ kind: fc.constant("recover" as const), connection: fc.constantFrom(...COOLABLE) }),
  fc.record({
    kind: fc.constant("spend" as const),
    rung: fc.constantFrom("cheap", "premium"),
    usd: fc.double({ min: 0.01, max: 1.5, noNaN: true }),
  }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 1, max: 2 * HOUR }) }),
  fc.record({
    kind: fc.constant("route" as const),
    id: fc.constantFrom(...IDS),
    pin: fc.option(fc.constantFrom(...PINS), { nil: undefined }),
    scoped: fc.boolean(),
  }),
);

function same(target: DispatchTarget): string {
  return `${target.connection.config.id}/${target.model}/${target.rung}`;
}

describe("AF2 property (ladder.md §16, S5, THR5)", () => {
  it("over any readings, cooldowns and budgets, a placed session reaches only the ladder's own targets, on the rung the ladder serves from", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        let nowMs = T0;
        const now = () => nowMs;
        const store = createMemoryQuotaStore();
        const cooldowns = createCooldownBook({ store, now });
        const quotaCache = createQuotaCache({ store, now, cooldowns });
        const ledger = createSpendLedger({
          store: createMemorySpendStore(),
          budgetsUsd: CONFIG.subscriptionLadder.rungBudgetUsd,
          now,
        });
        const secrets = resolveSecrets(CONFIG, ENV);
        const deps = {
          config: CONFIG,
          secrets,
          quotaCache,
          cooldowns,
          ledger,
          upstream: createUpstreamClient(),
          now,
          logger: createLogger({ level: "silent" }),
          metrics: createMetrics(),
        } satisfies GatewayDeps;
        const table = createRoutingTable(CONFIG, secrets);
        const { ladderOptions, live } = createDispatcher(deps, table);
        const whyOut = (pin: PinnedTarget) => pinnedTargetOut(table, live, ladderOptions, pin);
        try {
          for (const action of steps) {
            switch (action.kind) {
              case "reading": {
                const window: QuotaWindow = {
                  windowId: "5h",
                  remainingPercent: 100 - action.usedPercent,
                  resetAt: new Date(nowMs + action.resetInMs).toISOString(),
                  status: action.usedPercent >= 100 ? "exhausted" : "ok",
                  source: "usage",
                  observedAt: new Date(nowMs).toISOString(),
                };
                quotaCache.observe(action.connection, [window]);
                break;
              }
              case "cooldown":
                cooldowns.fail(action.connection, {
                  kind: action.failure,
                  retryAt: null,
                  resetAt: null,
                });
                break;
              case "recover":
                cooldowns.succeed(action.connection);
                break;
              case "spend": {
                const connectionId = action.rung === "cheap" ? "cheap-1" : "premium";
                const held = await ledger.reserve({
                  rung: action.rung,
                  connectionId,
                  model: "vendor/coder",
                  maxCostUsd: action.usd,
                  requestId: "property",
                });
                if (!isRefusal(held)) {
                  await ledger.settle(held, action.usd, {
                    model: "vendor/coder",
                    inputTokens: 1,
                    outputTokens: 1,
                  });
                }
                break;
              }
              case "wait":
                nowMs += action.ms;
                break;
              case "route": {
                const client = action.scoped ? SCOPED : EVERYONE;
                const resolution = table.resolve(action.id) as ResolvedModel;
                const ladder = buildTargets(
                  table,
                  resolution.groups,
                  resolution.grouping,
                  client,
                  live,
                  ladderOptions,
                );
                const decision = placeSession(ladder, action.pin, whyOut);
                const placed = affinityOrder(ladder, decision);
                // Exactly the ladder's targets, none added or dropped.
                expect(placed.map(same).sort()).toEqual(ladder.map(same).sort());
                // The dispatcher walks the same order.
                expect(ladder.map((_, n) => targetInAffinityOrder(ladder, decision, n))).toEqual(
                  placed,
                );
                // Rung by rung as the ladder ordered them: the pin never jumps a rung.
                expect(placed.map((target) => target.rung)).toEqual(
                  ladder.map((target) => target.rung),
                );
                if (resolution.grouping === "subscription") {
                  expect(placed.every((target) => target.rung === "subscription")).toBe(true);
                }
                const pinned = action.pin;
                const index = pinned
                  ? ladder.findIndex(
                      (target) =>
                        target.connection.config.id === pinned.connectionId &&
                        target.model === pinned.model,
                    )
                  : -1;
                if (decision.outcome === "hit") {
                  expect(index).toBeGreaterThanOrEqual(0);
                  expect(ladder[index]!.rung).toBe(ladder[0]!.rung);
                  expect(same(placed[0]!)).toBe(same(ladder[index]!));
                } else {
                  expect(placed).toBe(ladder);
                  if (decision.outcome === "new") expect(pinned).toBeUndefined();
                  else expect(index === -1 || ladder[index]!.rung !== ladder[0]!.rung).toBe(true);
                }
                break;
              }
            }
          }
        } finally {
          deps.upstream.close();
        }
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
