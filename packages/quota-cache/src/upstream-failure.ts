import type { OverageObservation } from "./overage-evidence";
import type { QuotaWindow, QuotaWindowScope } from "./quota-state";
import type { ImplausibleTime } from "./time-plausibility";

/**
 * Why an upstream refused, as far as quota is concerned (quota-signals.md §13, pitfall 10):
 * - `rate_limited`: a short rate limit; retry after a brief wait.
 * - `window_exhausted`: a plan or rate window is spent until its reset.
 * - `credits_exhausted`: a hard stop (no credit, `insufficient_quota`, 402); retrying cannot fix it.
 * - `overloaded`: provider capacity, not our quota: back off the target, mark no quota.
 * - `auth_invalid`: the credential is missing a scope, expired or revoked; needs re-auth.
 * - `money_refusal`: the upstream refused (or would have billed) this traffic as paid usage, not
 *   plan usage (Claude "Third-party apps now draw from your extra usage…", "You're out of extra
 *   usage…", "Extra usage is required for long context requests"). Not a client error: the
 *   connection bills for it, so the request falls through to the next target and the
 *   connection's overage evidence becomes `on` (ladder.md E4). Marks no quota.
 * - `misconfigured`: the provider says the connection itself is set up wrong (a provider-side
 *   header missing or refused, no plan on the key, a plan that does not include this service).
 *   Not the client's fault and not quota: the request falls through to the next target, and only
 *   an operator's change (or the provider's) fixes it. Marks no quota.
 * - `client_refused`: the provider refuses the client program that sent the request, not the
 *   connection (a Claude login serves Claude Code only; Kimi For Coding admits only coding agents
 *   it recognises by their User-Agent; quota-signals.md §15). The same connection serves other
 *   clients, so nothing is cooled and no quota is marked; the request falls through to the next
 *   target.
 */
export type UpstreamFailureKind =
  | "rate_limited"
  | "window_exhausted"
  | "credits_exhausted"
  | "overloaded"
  | "auth_invalid"
  | "money_refusal"
  | "misconfigured"
  | "client_refused";

/** A classified upstream error response. Never carries a credential. */
export interface UpstreamFailure {
  kind: UpstreamFailureKind;
  /** ISO instant before which a retry is pointless (Retry-After, RetryInfo, "try again in"); null if none was sent. */
  retryAt: string | null;
  /** ISO instant at which the exhausted window resets; null when the signal carries none. */
  resetAt: string | null;
  /** Present when the failure concerns one model only (a per-model weekly cap, say). */
  scope?: QuotaWindowScope;
  /** The window the failure concerns, when the signal names one. */
  windowId?: string;
  /** The provider's short error code or type (`rate_limit_error`, `insufficient_quota`…). */
  code?: string;
  /**
   * The problem in words, for logs, attempt records and status ("Copilot refused the request:
   * missing Editor-Version header"). Built by the parser from fixed words, never copied from the
   * upstream body, so it never carries a credential.
   */
  detail?: string;
}

/** Everything one upstream response says about quota: windows seen, and the failure if it was one. */
export interface ResponseSignals {
  windows: QuotaWindow[];
  failure?: UpstreamFailure;
  /** Claude subscription "extra usage" (paid overage) evidence, when the response carried it. */
  overage?: OverageSignal;
  /**
   * Live overage evidence the response carried (ladder.md E1/E2): Claude `overage-status`, a
   * money refusal, Codex credits headers, a Copilot 402 `quota_exceeded`. Feed it to
   * `QuotaCache.observeEvidence`.
   */
  evidence?: OverageObservation;
  /**
   * Times beyond what their window allows, set by `parseResponseSignals` and
   * `parseUsageSignals`: each was dropped and reads as unknown. One warning and a metric each.
   */
  implausible?: ImplausibleTime[];
}

/**
 * Paid overage state reported by a subscription (Claude `anthropic-ratelimit-unified-overage-*`).
 * A connection serving from overage costs money, so it ranks after flat-rate connections.
 */
export interface OverageSignal {
  /** Provider decision for overage: `allowed`, `allowed_warning` or `rejected`. */
  status: "allowed" | "allowed_warning" | "rejected";
  /** Why overage cannot be used (`out_of_credits`, `org_level_disabled`…), when sent. */
  disabledReason?: string;
  /** True when the plan is exhausted and requests are being served from paid overage. */
  inUse?: boolean;
  /** ISO-8601 reset of the overage period, when sent. */
  resetAt?: string | null;
}
