import type { StorePruneResult } from "./spend-store";

/**
 * Runs `step` (one bounded deletion of each kind of history, at most `limit` of each) until a
 * step deletes fewer than `limit` of every kind, or `signal` is aborted, and adds up what the
 * steps deleted. Writes go on between steps.
 */
export async function pruneInSteps(
  step: (limit: number) => Promise<StorePruneResult>,
  limit: number,
  signal?: AbortSignal,
): Promise<StorePruneResult> {
  const total: StorePruneResult = { records: 0, minuteSums: 0, finishedIds: 0, windows: 0 };
  while (!signal?.aborted) {
    const done = await step(limit);
    total.records += done.records;
    total.minuteSums += done.minuteSums;
    total.finishedIds += done.finishedIds;
    total.windows += done.windows;
    if (Math.max(done.records, done.minuteSums, done.finishedIds, done.windows) < limit) {
      return total;
    }
  }
  return total;
}
