import type { QuotaState } from "@planfirst/quota-cache";
import type { LadderOptions } from "@planfirst/subscription-ladder";
import { describe, expect, it } from "vitest";
import { ANONYMOUS_CLIENT } from "../app/auth/client-keys";
import { parseConfig } from "../config/load-config";
import { buildTargets, type PoolLiveState } from "./build-pool";
import { createPoolCache, type ResolvedModel } from "./pool-cache";
import { createRoutingTable } from "./routing-table";

const NOW = Date.UTC(2026, 11, 1, 12);

/** auto/thrifty over a keyless server and a paid OpenRouter key, the cheap rung budgeted at $1. */
function world() {
  const config = parseConfig({
    connections: [
      {
        id: "local",
        provider: "ollama",
        authType: "none",
        protocol: "openai",
        baseUrl: "http://127.0.0.1:1/v1",
        models: ["qwen3-coder"],
      },
      {
        id: "openrouter",
        provider: "openrouter",
        authType: "apikey",
        protocol: "openai",
        baseUrl: "http://127.0.0.1:1/v1",
        credential: "env:OPENROUTER_KEY",
        models: ["qwen/qwen3-coder"],
      },
    ],
    subscriptionLadder: { rungBudgetUsd: { cheap: 1 } },
  });
  const table = createRoutingTable(config, {
    credentials: new Map([
      ["local", null],
      ["openrouter", "sk-or-test"],
    ]),
    disabledConnections: new Map(),
    clientKeys: [],
    warnings: [],
  });
  const state: { spentUsd: number | null; coolingLocal: boolean } = {
    spentUsd: 0,
    coolingLocal: false,
  };
  const quota = (): QuotaState | undefined => undefined;
  const live: PoolLiveState = {
    quotaState: quota,
    isCoolingDown: (connectionId) => connectionId === "local" && state.coolingLocal,
  };
  const ladderOptions = {
    ...table.ladderBase,
    resolveQuotaState: quota,
    resolveRungSpendUsd: () => state.spentUsd,
    now: () => NOW,
  } as LadderOptions;
  const resolution = table.resolve("auto/thrifty") as ResolvedModel;
  if (!resolution.ok) throw new Error("auto/thrifty did not resolve");
  const cache = createPoolCache({
    table,
    live,
    ladderOptions,
    now: () => NOW,
    maxStateAgeMs: 60_000,
  });
  const cached = () => cache.targetsFor(resolution, ANONYMOUS_CLIENT);
  const built = () =>
    buildTargets(
      table,
      resolution.groups,
      resolution.grouping,
      ANONYMOUS_CLIENT,
      live,
      ladderOptions,
    );
  const ids = (targets: readonly { connection: { config: { id: string } } }[]) =>
    targets.map((target) => target.connection.config.id);
  return { state, cached, built, ids };
}

describe("pool cache", () => {
  it("reuses the pool while the paid rung's spend moves under its budget", () => {
    const { state, cached } = world();
    const first = cached();
    state.spentUsd = 0.25;
    expect(cached()).toBe(first);
    state.spentUsd = 0.999;
    expect(cached()).toBe(first);
  });

  it("gives what a fresh build gives for every spend around the budget, in any order", () => {
    const { state, cached, built, ids } = world();
    const spends = [0, 0.5, 1, 0.99, 2, null, 0.1, 1, Number.NaN, 0, null, 1.5, 0.2];
    for (const coolingLocal of [false, true]) {
      state.coolingLocal = coolingLocal;
      for (const spentUsd of spends) {
        state.spentUsd = spentUsd;
        expect(ids(cached()), `spent ${spentUsd}, local cooling ${coolingLocal}`).toEqual(
          ids(built()),
        );
      }
    }
    // The budget does gate the paid connection: the comparison above is not vacuous.
    state.coolingLocal = false;
    state.spentUsd = 0;
    expect(ids(cached())).toContain("openrouter");
    state.spentUsd = 1;
    expect(ids(cached())).not.toContain("openrouter");
  });
});
