import { connectionBillingCatalog } from "@planfirst/billing-catalog";
import {
  type ConnectionBillingVerdict,
  createConnectionClassifier,
} from "@planfirst/connection-billing";
import type { LadderCandidate, LadderOptions } from "./ladder-options";
import { type LadderRung, RUNG_ORDER } from "./rung";

/** Rung index of a metered or unknown connection, from the model's economic tier (A1). */
export function rungIndexOfTier(tier: string): number {
  if (tier === "free") return 2;
  if (tier === "cheap") return 3;
  // Anything unexpected from a resolver lands on the dearest rung, never a cheaper one.
  return 4;
}

/** Rung index decided by billing alone, or -1 when the model's tier must decide (A1, C7). */
export function rungIndexOfBilling(verdict: ConnectionBillingVerdict): number {
  if (verdict.billing === "subscription") return 0;
  if (verdict.billing === "keyless") return 1;
  return -1;
}

/**
 * The rung of a (model, connection) pair (A1, A2): the connection's billing decides first
 * (subscription → `subscription`, keyless → `keyless`); metered and unknown connections (C7)
 * fall through to the model's economic tier (free, cheap, premium). The connection is
 * classified with `connection.authType` against `options.catalog` (default: bundled).
 */
export function assignRung(
  candidate: Pick<LadderCandidate, "model">,
  connection: { provider: string; authType: string | null; connectionId: string | null },
  options: Pick<LadderOptions, "resolveEconomicTier" | "catalog">,
): LadderRung {
  const verdict = createConnectionClassifier(options.catalog ?? connectionBillingCatalog).classify(
    connection,
  );
  const byBilling = rungIndexOfBilling(verdict);
  const index =
    byBilling >= 0
      ? byBilling
      : rungIndexOfTier(options.resolveEconomicTier(connection.provider, candidate.model));
  return RUNG_ORDER[index]!;
}
