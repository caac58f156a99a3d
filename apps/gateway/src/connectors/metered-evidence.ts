import { EVIDENCE_REWRITE_INTERVAL_MS, type OverageObservation } from "@planfirst/quota-cache";

/**
 * Overage evidence `on` (ladder.md E1) for a connection that bills every request it serves, an
 * Anthropic or OpenRouter key: it says so with every answer. One observation is built per
 * {@link EVIDENCE_REWRITE_INTERVAL_MS} and the same object given back in between, which the
 * gateway does not hand to the quota cache again (the cache would not rewrite so young a repeat):
 * on the paid path a repeat costs no date, no string and no store lookup. Undefined for an
 * instant that is not a finite epoch ms.
 */
export function meteredEvidence(
  detail: string,
): (observedAtMs: number) => OverageObservation | undefined {
  let last: OverageObservation | undefined;
  let lastMs = Number.NEGATIVE_INFINITY;
  return (observedAtMs) => {
    if (!Number.isFinite(observedAtMs)) return undefined;
    const ageMs = observedAtMs - lastMs;
    if (last && ageMs >= 0 && ageMs < EVIDENCE_REWRITE_INTERVAL_MS) return last;
    lastMs = observedAtMs;
    last = {
      evidence: "on",
      observedAt: new Date(observedAtMs).toISOString(),
      source: "credits",
      detail,
    };
    return last;
  };
}
