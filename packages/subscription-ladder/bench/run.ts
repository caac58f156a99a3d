import { measure, printTable } from "@planfirst/bench";
import type { ConnectionBillingEntry, ModelPrice } from "@planfirst/billing-catalog";
import type { QuotaState } from "@planfirst/quota-cache";
import { createTierResolver } from "@planfirst/tier-resolver";
import {
  filterSubscriptionOnlyCandidates,
  type LadderCandidate,
  type LadderOptions,
  orderPoolByRung,
} from "../src/index";
import { at, billingEntry, NOW_MS } from "../src/ladder-test-support";

// Decision path only: the candidate pool and the in-memory resolvers are built once, outside the
// timed loop, as the gateway builds them from config; each sample is one full ladder pass.

const catalog: ConnectionBillingEntry[] = [
  billingEntry("claude", "oauth", "subscription", "hard-stop"),
  billingEntry("claude", undefined, "metered", "meters-to-paid"),
  billingEntry("codex", "oauth", "subscription", "hard-stop"),
  billingEntry("github-copilot", "oauth", "subscription", "unknown"),
  billingEntry("openrouter", undefined, "metered", "meters-to-paid"),
  billingEntry("groq", undefined, "metered", "meters-to-paid"),
];

const models = ["sonnet", "opus", "gpt-5", "qwen3-coder", "llama-70b", "deepseek-chat"];
const prices: ModelPrice[] = [];
for (const provider of ["claude", "openrouter", "groq", "codex", "github-copilot"]) {
  models.forEach((model, i) => {
    const input = [3, 15, 1.25, 0.2, 0, 0.5][i]!;
    prices.push({ provider, model, inputPerMTok: input, outputPerMTok: input * 4 });
  });
}
const tiers = createTierResolver({ prices, freeProviders: ["ollama"] });

/** Connection kinds in a realistic mix: mostly plan logins and metered keys, some local. */
const kinds = [
  { provider: "claude", authType: "oauth" },
  { provider: "claude", authType: "apikey" },
  { provider: "codex", authType: "oauth" },
  { provider: "github-copilot", authType: "oauth" },
  { provider: "openrouter", authType: "apikey" },
  { provider: "groq", authType: "apikey" },
  { provider: "ollama", authType: "none" },
  { provider: "newco", authType: "oauth" },
];

function quotaFor(i: number): QuotaState | undefined {
  // One literal with every field, as the quota cache builds a state. Spreading a shared base and
  // adding fields gives almost every state its own hidden class in V8, so the engine's reads of
  // a state go megamorphic and miss the fixed-size lookup cache once there are thousands of
  // states: a cost that grows with the number of distinct states, not with the engine's work.
  const state = (
    status: QuotaState["status"],
    remainingPercent: number,
    hasBeenExhausted: boolean,
    checkedAgoMs = 20_000,
  ): QuotaState => ({
    status,
    remainingPercent,
    resetAt: at(3_600_000),
    checkedAt: at(-checkedAgoMs),
    hasBeenExhausted,
    windows: [],
  });
  switch (i % 10) {
    case 0:
      return undefined;
    case 1:
      return state("exhausted", 0, true);
    case 2:
      return state("available", 4, true);
    case 3:
      return state("available", 70, false, 600_000);
    default:
      return state("available", 20 + (i % 70), false);
  }
}

interface World {
  pool: LadderCandidate[];
  options: LadderOptions;
}

/** A pool of about `connections` connections: allowlists of 1–4, some candidates bound to one. */
function buildWorld(connections: number): World {
  const authTypes = new Map<string, string>();
  const states = new Map<string, QuotaState | undefined>();
  const pool: LadderCandidate[] = [];
  let made = 0;
  let c = 0;
  while (made < connections) {
    const kind = kinds[c % kinds.length]!;
    const model = models[(c * 7) % models.length]!;
    const size = Math.min(connections - made, 1 + (c % 4));
    const ids: string[] = [];
    for (let k = 0; k < size; k++) {
      // Mix kinds inside an allowlist now and then so THR4 splits happen too.
      const own = (c + k) % 5 === 0 ? kinds[(c + 1) % kinds.length]! : kind;
      // Ids parsed from config are flat strings; a concatenated one would be a rope.
      const id: string = JSON.parse(`"${own.provider}-${own.authType}-${made + k}"`);
      authTypes.set(id, own.authType);
      states.set(id, quotaFor(made + k));
      ids.push(id);
    }
    made += size;
    pool.push(
      size === 1 && c % 3 === 0
        ? { provider: kind.provider, model, connectionId: ids[0]! }
        : { provider: kind.provider, model, connectionId: null, allowedConnectionIds: ids },
    );
    c++;
  }
  const spend = { cheap: 2.5, premium: 9.99 };
  return {
    pool,
    options: {
      catalog,
      now: () => NOW_MS,
      resolveAuthType: (id) => authTypes.get(id) ?? null,
      resolveQuotaState: (_provider, id) => (id === null ? undefined : states.get(id)),
      resolveEconomicTier: (provider, model) => tiers.classifyTier(provider, model).tier,
      rungBudgetUsd: { cheap: 5, premium: 10 },
      resolveRungSpendUsd: (rung) => spend[rung],
    },
  };
}

/** The cases: distinct connections at each size, plus 1,000 connections repeated ten times. */
const cases = [
  ...[10, 100, 1_000, 10_000].map((size) => ({
    size,
    label: String(size),
    world: () => buildWorld(size),
  })),
  {
    size: 10_000,
    label: "10000 (1000 ×10)",
    world: (): World => {
      // Same decisions, a tenth of the distinct data: separates the engine's own growth from
      // the cost of a working set that no longer fits in the CPU caches.
      const { pool, options } = buildWorld(1_000);
      return { pool: Array.from({ length: 10 }, () => pool).flat(), options };
    },
  },
];

const rows: string[][] = [];
// "strict+evidence": the same strict pass with live overage evidence for every connection, as the
// gateway wires `quotaCache.overageEvidence`: one fresh `off` each, a fresh `on` for every 7th.
const evidenceOff = [{ evidence: "off" as const, observedAt: at(-5_000), source: "claude-header" }];
const evidenceOn = [{ evidence: "on" as const, observedAt: at(-5_000), source: "claude-header" }];
function withEvidence(options: LadderOptions): LadderOptions {
  return {
    ...options,
    resolveOverageEvidence: (id) => (id.length % 7 === 0 ? evidenceOn : evidenceOff),
  };
}

for (const grouping of ["thrifty", "strict", "strict+evidence"] as const) {
  let medianAt1k = Number.NaN;
  let cpuAt1k = Number.NaN;
  for (const { size, label, world } of cases) {
    const built = world();
    const pool = built.pool;
    const options = grouping === "strict+evidence" ? withEvidence(built.options) : built.options;
    const run =
      grouping === "thrifty"
        ? () => orderPoolByRung(pool, options)
        : () => filterSubscriptionOnlyCandidates(pool, options);
    const kept = run().length;
    const iterations = size >= 10_000 ? 300 : 2_000;
    const warmup = size >= 10_000 ? 50 : 200;
    // CPU time of the process over the whole batch: unlike wall time it does not grow when the
    // scheduler preempts a long sample on a busy machine.
    const cpuBefore = process.cpuUsage();
    const result = await measure(`${grouping} ${label}`, run, { iterations, warmup });
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMsPerRun = (cpu.user + cpu.system) / 1_000 / (iterations + warmup);
    if (size === 1_000) {
      medianAt1k = result.medianMs;
      cpuAt1k = cpuMsPerRun;
    }
    rows.push([
      grouping,
      label,
      String(pool.length),
      String(kept),
      result.medianMs.toFixed(4),
      result.p99Ms.toFixed(4),
      cpuMsPerRun.toFixed(4),
      size === 10_000 ? `${(result.medianMs / medianAt1k).toFixed(1)}×` : "",
      size === 10_000 ? `${(cpuMsPerRun / cpuAt1k).toFixed(1)}×` : "",
    ]);
  }
}
printTable(
  [
    "grouping",
    "connections",
    "candidates",
    "kept",
    "median ms",
    "p99 ms",
    "cpu ms/run",
    "median ÷ 1k",
    "cpu ÷ 1k",
  ],
  rows,
);
