/** Live evidence of whether a connection bills past its plan, with where it was seen. */
export interface StatusOverageEvidence {
  evidence: "on" | "off";
  /** The signal that carried it (`claude-header`, `codex-usage`, …). */
  source: string;
  observedAt: string;
  detail: string | null;
}

/** The optional parts of a quota cache the status reads when the cache offers them. */
export interface EvidenceSource {
  overageEvidence?(connectionId: string): unknown;
  isProbeInFlight?(connectionId: string): boolean;
}

/**
 * The newest observation the cache holds (it keeps the newest `on` and `off`, newest first).
 * Read with a total guard: the gateway's cache interface does not promise the method.
 */
export function overageEvidenceOf(
  cache: EvidenceSource,
  connectionId: string,
): StatusOverageEvidence | null {
  const held =
    typeof cache.overageEvidence === "function" ? cache.overageEvidence(connectionId) : [];
  const raw: unknown = Array.isArray(held) ? held[0] : undefined;
  if (raw === null || typeof raw !== "object") return null;
  const value = raw as Record<string, unknown>;
  if (value.evidence !== "on" && value.evidence !== "off") return null;
  if (typeof value.observedAt !== "string") return null;
  return {
    evidence: value.evidence,
    source: typeof value.source === "string" ? value.source : "unknown",
    observedAt: value.observedAt,
    detail: typeof value.detail === "string" ? value.detail : null,
  };
}

/** True while the cache says a probe of the connection is in flight; false when it cannot say. */
export function probeInFlightOf(cache: EvidenceSource, connectionId: string): boolean {
  return (
    typeof cache.isProbeInFlight === "function" && cache.isProbeInFlight(connectionId) === true
  );
}
