import type { ConnectionBillingEntry } from "@planfirst/billing-catalog";
import type { QuotaState } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import type { LadderOptions } from "./ladder-options";

/** Fixed clock of the tests: 2026-03-01T12:00:00Z. */
export const NOW_MS = Date.parse("2026-03-01T12:00:00.000Z");

/** ISO instant `offsetMs` from the test clock. */
export function at(offsetMs: number): string {
  return new Date(NOW_MS + offsetMs).toISOString();
}

/** A catalog entry for tests and the benchmark; the reason names provider, auth type and verdict. */
export function billingEntry(
  provider: string,
  authType: string | undefined,
  billing: ConnectionBillingEntry["billing"],
  overage: ConnectionBillingEntry["overage"],
): ConnectionBillingEntry {
  return {
    provider,
    ...(authType === undefined ? {} : { authType }),
    billing,
    overage,
    reason: `${provider} ${authType ?? "any"}: ${billing}, ${overage}`,
    sources: ["https://example.com/terms"],
    reviewed: "2026-02-01",
  };
}

/** A small catalog of the tests' own, independent of the bundled data. */
export const testCatalog: ConnectionBillingEntry[] = [
  billingEntry("claude", "oauth", "subscription", "hard-stop"),
  billingEntry("claude", undefined, "metered", "meters-to-paid"),
  billingEntry("codex", "oauth", "subscription", "hard-stop"),
  billingEntry("github-copilot", "oauth", "subscription", "unknown"),
  billingEntry("cursor", "oauth", "subscription", "meters-to-paid"),
  billingEntry("openrouter", undefined, "metered", "meters-to-paid"),
  billingEntry("ollama", undefined, "keyless", "hard-stop"),
];

/** A fresh quota reading with the given fields. */
export function reading(fields: Partial<QuotaState> = {}): QuotaState {
  return {
    status: "available",
    remainingPercent: 50,
    resetAt: at(3_600_000),
    checkedAt: at(-10_000),
    hasBeenExhausted: false,
    windows: [],
    ...fields,
  };
}

/** In-memory world the resolvers read from. */
interface TestWorld {
  authTypes?: Record<string, string | null>;
  states?: Record<string, QuotaState | undefined>;
  tiers?: Record<string, EconomicTier>;
  spendUsd?: Partial<Record<"cheap" | "premium", number | null>>;
}

/** Ladder options over an in-memory world, on the test catalog and the fixed clock. */
export function testOptions(world: TestWorld, extra: Partial<LadderOptions> = {}): LadderOptions {
  return {
    catalog: testCatalog,
    now: () => NOW_MS,
    resolveAuthType: (connectionId) => world.authTypes?.[connectionId] ?? null,
    resolveQuotaState: (_provider, connectionId, _model) =>
      connectionId === null ? undefined : world.states?.[connectionId],
    resolveEconomicTier: (_provider, model) => world.tiers?.[model] ?? "premium",
    resolveRungSpendUsd: world.spendUsd ? (rung) => world.spendUsd?.[rung] ?? null : undefined,
    ...extra,
  };
}
