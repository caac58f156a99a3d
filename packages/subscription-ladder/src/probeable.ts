import { createLadderContext, judgeProbeable } from "./ladder-engine";
import type { LadderCandidate, LadderOptions } from "./ladder-options";

/** One connection `auto/subscription` may send a probe to (P1), with the candidate it serves. */
export interface ProbeableConnection<T extends LadderCandidate = LadderCandidate> {
  /** The input candidate, unchanged. */
  candidate: T;
  /** Its index in the input pool. */
  position: number;
  /** The connection to probe; null only for a candidate with no connection id at all. */
  connectionId: string | null;
}

/**
 * P1/P5 for one connection of a candidate: true when it is billed exactly as a `subscription`,
 * its effective overage (catalog or operator value refined by fresh evidence, E3) is `hard-stop`,
 * and it has no fresh reading (no state Q1, reset passed S2, unknown Q3, stale Q4, no percentage
 * Q5). Such a connection cannot bill, so one request at a time may go to it to take the reading.
 * An exhausted reading (Q2) is never probeable. Pure; never throws.
 */
export function isProbeable(
  candidate: LadderCandidate,
  connectionId: string | null,
  options: LadderOptions,
): boolean {
  return judgeProbeable(createLadderContext(options, "subscription"), candidate, connectionId);
}

/**
 * Every probeable connection of the pool (see {@link isProbeable}), in pool order and, within a
 * candidate, allowlist order. `filterSubscriptionOnlyCandidates` never returns these (SUB1);
 * the gateway takes a probe lease (`QuotaCache.tryAcquireProbe`) on one of them and sends the
 * request there as the probe, bound to that connection (P2). Reads `now()` once.
 */
export function findProbeableConnections<T extends LadderCandidate>(
  pool: readonly T[],
  options: LadderOptions,
): ProbeableConnection<T>[] {
  const ctx = createLadderContext(options, "subscription");
  const out: ProbeableConnection<T>[] = [];
  pool.forEach((candidate, position) => {
    const ids =
      candidate.connectionId == null
        ? (candidate.allowedConnectionIds ?? [null])
        : [candidate.connectionId];
    for (const connectionId of ids) {
      if (judgeProbeable(ctx, candidate, connectionId)) {
        out.push({ candidate, position, connectionId });
      }
    }
  });
  return out;
}
