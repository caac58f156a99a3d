import type { ConnectionBillingEntry, OverageEvidenceReading } from "@planfirst/connection-billing";
import type { QuotaState } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import type { QuotaUsabilityOptions } from "./quota-usability";
import type { RungBudgetOptions } from "./rung-budget";

/**
 * One logical routing candidate: a model on a provider, served through one bound connection
 * (`connectionId`) or through any connection of an allowlist picked at dispatch. A bound
 * connection takes precedence over the allowlist. A candidate with neither is one implicit
 * connection of the provider (classified by its provider-wide catalog entry, C4).
 */
export interface LadderCandidate {
  /** Provider id of the candidate's connections (`claude`, `openrouter`…). */
  provider: string;
  /** Model id as the provider names it. */
  model: string;
  /** The one connection this candidate is bound to, or null. */
  connectionId: string | null;
  /**
   * Connections that may serve this candidate; the ladder rewrites it to those that pass
   * (ladder.md §10).
   */
  allowedConnectionIds?: readonly string[];
}

/**
 * What the ladder needs to decide, all injected: it does no I/O and keeps no state. Resolvers
 * must be synchronous and give the same answer within one pool build.
 */
export interface LadderOptions extends QuotaUsabilityOptions, RungBudgetOptions {
  /** Live quota reading of a connection for a model; undefined when none is known. */
  resolveQuotaState: (
    provider: string,
    connectionId: string | null,
    model: string,
  ) => QuotaState | undefined;
  /** Auth type of a connection (`oauth`, `apikey`, `none` = keyless…), null when not known. */
  resolveAuthType: (connectionId: string) => string | null;
  /** Economic tier of a model on a metered connection (see `@planfirst/tier-resolver`). */
  resolveEconomicTier: (provider: string, model: string) => EconomicTier;
  /**
   * Billing entries used to classify connections; defaults to the bundled catalog. Indexed once
   * per array identity, so pass the same array on every call.
   */
  catalog?: readonly ConnectionBillingEntry[];
  /**
   * Live overage evidence of a connection (ladder.md §14), e.g. `quotaCache.overageEvidence`:
   * none, one or several observations. SUB2 and P5 use the *effective* overage
   * (`effectiveOverage` of `@planfirst/connection-billing`: catalog or operator value refined by
   * evidence fresh within `maxStateAgeMs`). Absent → the catalog or operator value alone.
   */
  resolveOverageEvidence?: (
    connectionId: string,
  ) => OverageEvidenceReading | readonly OverageEvidenceReading[] | null | undefined;
}
