import { runLadder } from "./ladder-engine";
import type { LadderCandidate, LadderOptions } from "./ladder-options";

/**
 * The `auto/subscription` pool (ladder.md §8), which fails closed. A connection is kept only when
 * its billing is exactly `subscription`, its overage is `hard-stop` and its quota reading is usable
 * and fresh (SUB2); unverified quota is never admitted, whatever `admitUnknownQuota` says (SUB1).
 * Every connection is verified on its own and `allowedConnectionIds` is rewritten to the subset
 * that passed, in original order (SUB3, ladder.md §10); a candidate with none left is dropped
 * (SUB4). When nothing is dropped or rewritten the input array itself is returned (SUB5). An empty
 * result is the intended answer (SUB6).
 */
export function filterSubscriptionOnlyCandidates<T extends LadderCandidate>(
  pool: readonly T[],
  options: LadderOptions,
): readonly T[] {
  return runLadder(pool, options, "subscription");
}
