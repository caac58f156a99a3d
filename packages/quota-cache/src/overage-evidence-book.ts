import { type OverageObservation, parseOverageObservation } from "./overage-evidence";
import type { QuotaStore } from "./quota-store";

/**
 * A repeat of held evidence (same kind, source and detail) observed less than this after it is
 * not written again: a connection that says the same thing on every response would otherwise
 * cost a store write per request. Freshness is judged over minutes (`maxStateAgeMs`), so the held
 * observation is at most this much older than it could be; a change of kind is always written.
 */
export const EVIDENCE_REWRITE_INTERVAL_MS = 5_000;

function repeatsHeldEvidence(
  held: readonly OverageObservation[],
  observation: OverageObservation,
): boolean {
  const observedMs = Date.parse(observation.observedAt);
  return held.some((h) => {
    if (
      h.evidence !== observation.evidence ||
      h.source !== observation.source ||
      h.detail !== observation.detail ||
      h.overageCount !== observation.overageCount
    ) {
      return false;
    }
    const ageMs = observedMs - Date.parse(h.observedAt);
    return ageMs >= 0 && ageMs < EVIDENCE_REWRITE_INTERVAL_MS;
  });
}

/** The overage evidence part of the quota cache (see `QuotaCache.observeEvidence`). */
interface OverageEvidenceBook {
  observeEvidence(connectionId: string, observation: OverageObservation): void;
  overageEvidence(connectionId: string): OverageObservation[];
}

/** Overage evidence kept in `store`'s `evidence` bucket. */
export function createOverageEvidenceBook(store: QuotaStore): OverageEvidenceBook {
  // Stored records are replaced, never mutated, so each is parsed once per cache.
  const parsedEvidence = new WeakMap<object, OverageObservation | null>();

  function evidenceRecords(connectionId: string): OverageObservation[] {
    const out: OverageObservation[] = [];
    for (const stored of store.list("evidence", connectionId)) {
      let observation = parsedEvidence.get(stored);
      if (observation === undefined) {
        observation = parseOverageObservation(stored.value) ?? null;
        parsedEvidence.set(stored, observation);
      }
      if (observation) out.push(observation);
    }
    return out;
  }

  function putEvidence(connectionId: string, observation: OverageObservation): void {
    store.put("evidence", {
      connectionId,
      key: observation.evidence,
      rev: Date.parse(observation.observedAt),
      value: observation,
    });
  }

  function observeEvidence(connectionId: string, input: OverageObservation): void {
    const observation = parseOverageObservation(input);
    if (!observation) return;
    const held = evidenceRecords(connectionId);
    const count = observation.overageCount;
    const heldCount = count === undefined ? undefined : highestOverageCount(held);
    if (count !== undefined && heldCount !== undefined && count > heldCount) {
      // Premium requests were billed since the last reading: proof the account bills (E1).
      putEvidence(connectionId, {
        evidence: "on",
        observedAt: observation.observedAt,
        source: "copilot-overage-count",
        detail: `overage_count ${heldCount} → ${count}`,
        overageCount: count,
      });
    }
    if (!repeatsHeldEvidence(held, observation)) putEvidence(connectionId, observation);
  }

  function overageEvidence(connectionId: string): OverageObservation[] {
    return evidenceRecords(connectionId).sort((a, b) => {
      const byTime = Date.parse(b.observedAt) - Date.parse(a.observedAt);
      if (byTime !== 0) return byTime;
      return a.evidence === b.evidence ? 0 : a.evidence === "on" ? -1 : 1;
    });
  }

  return { observeEvidence, overageEvidence };
}

/** The highest `overageCount` among `held`, or undefined when none carries one. */
function highestOverageCount(held: readonly OverageObservation[]): number | undefined {
  let highest: number | undefined;
  for (const observation of held) {
    const count = observation.overageCount;
    if (count !== undefined && (highest === undefined || count > highest)) highest = count;
  }
  return highest;
}
