/** A reading of live overage evidence (ladder.md §14); absence = no evidence. */
export type OverageEvidence = "off" | "on";

/**
 * One observation of whether a connection bills past (or instead of) its plan, as seen in its
 * own responses or usage endpoint (E1, E2). The cache stores it; the rules that combine it with
 * the catalog live in `@planfirst/connection-billing` (`effectiveOverage`).
 */
export interface OverageObservation {
  /** `on` = this connection bills, or would bill; `off` = a request now cannot bill. */
  evidence: OverageEvidence;
  /** ISO-8601 instant of the response or payload that carried it. */
  observedAt: string;
  /**
   * Which signal: `claude-header`, `claude-usage`, `claude-money-refusal`, `codex-header`,
   * `codex-event`, `codex-usage`, `copilot-usage`, `copilot-quota-exceeded`, or `probe`-style
   * names a caller chooses.
   */
  source: string;
  /** Short provider detail (`out_of_credits`, `has_credits=true`…). Never a credential. */
  detail?: string;
  /**
   * Copilot `premium_interactions.overage_count` at the time, when sent: the cache turns a count
   * higher than the last one it holds into an `on` (premium requests are being billed).
   */
  overageCount?: number;
}

/**
 * Checks an observation handed to the cache or read back from a store; undefined when malformed
 * (skipped, never thrown). Details are cut to 200 characters.
 */
export function parseOverageObservation(value: unknown): OverageObservation | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const raw = value as Record<string, unknown>;
  if (raw.evidence !== "on" && raw.evidence !== "off") return undefined;
  if (typeof raw.observedAt !== "string" || Number.isNaN(Date.parse(raw.observedAt))) {
    return undefined;
  }
  const observation: OverageObservation = {
    evidence: raw.evidence,
    observedAt: new Date(Date.parse(raw.observedAt)).toISOString(),
    source: typeof raw.source === "string" && raw.source ? raw.source.slice(0, 64) : "unknown",
  };
  if (typeof raw.detail === "string" && raw.detail) observation.detail = raw.detail.slice(0, 200);
  if (
    typeof raw.overageCount === "number" &&
    Number.isFinite(raw.overageCount) &&
    raw.overageCount >= 0
  ) {
    observation.overageCount = raw.overageCount;
  }
  return observation;
}
