import { runLadder } from "./ladder-engine";
import type { LadderCandidate, LadderOptions } from "./ladder-options";

/**
 * The `auto/thrifty` pool (ladder.md §9), which fails open one rung at a time. Quota rungs
 * (subscription, keyless, free) are verified per connection, admitting unknown quota unless
 * `admitUnknownQuota` is false (THR1); paid rungs (cheap, premium) are gated per rung by budget
 * (THR2, B1–B4) and drop only a connection whose reading shows it exhausted. The output is sorted
 * by rung and keeps the caller's order within a rung (THR3). A candidate whose connections sit on
 * several rungs is split into one candidate per rung, each with that rung's connections in original
 * order (THR4); a candidate with no usable connection is dropped. When nothing changes the input
 * array itself is returned.
 */
export function orderPoolByRung<T extends LadderCandidate>(
  pool: readonly T[],
  options: LadderOptions,
): readonly T[] {
  return runLadder(pool, options, "thrifty");
}
