import type { ConnectionBillingEntry } from "@planfirst/billing-catalog";
import type { OverageEvidenceReading } from "@planfirst/connection-billing";
import type { QuotaState, QuotaWindow } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import fc from "fast-check";
import type { LadderCandidate, LadderOptions } from "./ladder-options";
import { at, NOW_MS } from "./ladder-test-support";

const PROVIDERS = ["claude", "codex", "openrouter", "ollama", "zai"];
const AUTH_TYPES = ["oauth", "apikey", "none", null];
const CONNECTIONS = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];
const MODELS = ["m0", "m1", "m2", "m3"];

const catalogArb: fc.Arbitrary<ConnectionBillingEntry[]> = fc.array(
  fc
    .record({
      provider: fc.constantFrom(...PROVIDERS),
      authType: fc.option(fc.constantFrom("oauth", "apikey"), { nil: undefined }),
      billing: fc.constantFrom("subscription", "metered", "keyless", "unknown" as const),
      overage: fc.constantFrom("hard-stop", "meters-to-paid", "unknown" as const),
    })
    .map(({ authType, ...rest }) => ({
      ...rest,
      ...(authType === undefined ? {} : { authType }),
      reason: "r",
      sources: ["https://example.com"],
      reviewed: "2026-01-01",
    })),
  { maxLength: 10 },
);

const stateArb: fc.Arbitrary<QuotaState | undefined> = fc.option(
  fc.record({
    status: fc.constantFrom("available", "exhausted", "unknown" as const),
    remainingPercent: fc.option(
      fc.oneof(
        fc.constantFrom(0, 2, 3, 5, 5.5, 100, -1, Number.NaN),
        fc.double({ min: 0, max: 100, noNaN: true }),
      ),
      { nil: null },
    ),
    resetAt: fc.option(fc.constantFrom(at(-1), at(0), at(1), at(3_600_000), "garbage"), {
      nil: null,
    }),
    checkedAt: fc.constantFrom(at(-10), at(-180_000), at(-180_001), at(-1_000_000), "not a date"),
    hasBeenExhausted: fc.boolean(),
    // A probe's served verification (P3) sometimes rides along.
    windows: fc.oneof(
      fc.constant<QuotaWindow[]>([]),
      fc.constant<QuotaWindow[]>([
        {
          windowId: "served",
          remainingPercent: null,
          resetAt: null,
          status: "ok" as const,
          source: "probe",
          observedAt: at(-10),
          served: true as const,
        },
      ]),
    ),
  }),
  { nil: undefined },
);

/** Evidence from every source: fresh or stale, on or off, money refusals included. */
const evidenceArb: fc.Arbitrary<OverageEvidenceReading[]> = fc.array(
  fc.record({
    evidence: fc.constantFrom("on", "off" as const),
    observedAt: fc.constantFrom(at(0), at(-10), at(-180_000), at(-180_001), at(-900_000), "bad"),
    source: fc.constantFrom(
      "claude-header",
      "claude-money-refusal",
      "codex-usage",
      "copilot-usage",
    ),
  }),
  { maxLength: 3 },
);

const candidateArb: fc.Arbitrary<LadderCandidate> = fc.oneof(
  fc.record({
    provider: fc.constantFrom(...PROVIDERS),
    model: fc.constantFrom(...MODELS),
    connectionId: fc.constant(null),
    allowedConnectionIds: fc.array(fc.constantFrom(...CONNECTIONS), { maxLength: 6 }),
  }),
  fc.record({
    provider: fc.constantFrom(...PROVIDERS),
    model: fc.constantFrom(...MODELS),
    connectionId: fc.constantFrom(...CONNECTIONS),
  }),
  fc.record({
    provider: fc.constantFrom(...PROVIDERS),
    model: fc.constantFrom(...MODELS),
    connectionId: fc.constant(null),
  }),
);

/** Everything the ladder's resolvers answer in one case of a property. */
export interface World {
  catalog: ConnectionBillingEntry[];
  authTypes: Record<string, string | null>;
  states: Record<string, QuotaState | undefined>;
  tiers: Record<string, EconomicTier>;
  budgets: { cheap?: number; premium?: number };
  spend: { cheap: number | null; premium: number | null };
  admitUnknownQuota: boolean | undefined;
  evidence: Record<string, OverageEvidenceReading[]>;
}

/** Worlds: catalogs, auth types, quota readings, tiers, budgets, spend and evidence. */
export const worldArb: fc.Arbitrary<World> = fc.record({
  catalog: catalogArb,
  authTypes: fc.record(
    Object.fromEntries(CONNECTIONS.map((id) => [id, fc.constantFrom(...AUTH_TYPES)])),
  ),
  states: fc.record(Object.fromEntries(CONNECTIONS.map((id) => [id, stateArb]))),
  tiers: fc.record(
    Object.fromEntries(
      MODELS.map((m) => [m, fc.constantFrom("free", "cheap", "premium" as const)]),
    ),
  ),
  budgets: fc.record(
    { cheap: fc.constantFrom(0, 5, 10), premium: fc.constantFrom(0, 5, 10) },
    { requiredKeys: [] },
  ),
  spend: fc.record({
    cheap: fc.option(fc.constantFrom(0, 4.99, 5, 12), { nil: null }),
    premium: fc.option(fc.constantFrom(0, 4.99, 5, 12), { nil: null }),
  }),
  admitUnknownQuota: fc.option(fc.boolean(), { nil: undefined }),
  evidence: fc.record(Object.fromEntries(CONNECTIONS.map((id) => [id, evidenceArb]))),
}) as fc.Arbitrary<World>;

/** The ladder's options over `world`, at the tests' fixed clock. */
export function optionsOf(world: World): LadderOptions {
  return {
    catalog: world.catalog,
    now: () => NOW_MS,
    resolveAuthType: (id) => world.authTypes[id] ?? null,
    resolveQuotaState: (_p, id) => (id === null ? undefined : world.states[id]),
    resolveEconomicTier: (_p, model) => world.tiers[model] ?? "premium",
    rungBudgetUsd: world.budgets,
    resolveRungSpendUsd: (rung) => world.spend[rung],
    resolveOverageEvidence: (id) => world.evidence[id],
    ...(world.admitUnknownQuota === undefined
      ? {}
      : { admitUnknownQuota: world.admitUnknownQuota }),
  };
}

/** Pools of up to eight candidates: allowlists, bound connections and unbound ones. */
export const poolArb = fc.array(candidateArb, { maxLength: 8 });
/** Runs of each ladder property. */
export const RUNS = { numRuns: 3000 };
