import { performance } from "node:perf_hooks";

/** Timing summary of one benchmark case, all times in milliseconds. */
export interface BenchResult {
  name: string;
  iterations: number;
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  opsPerSec: number;
}

/** Value at quantile `q` (0..1) of an ascending array; NaN when empty. */
export function quantile(sortedAscending: readonly number[], q: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const index = Math.min(sortedAscending.length - 1, Math.floor(q * sortedAscending.length));
  return sortedAscending[index]!;
}

/** Median of `values` (any order): the middle one, or the mean of the two middle ones; NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Times `fn` after `warmup` untimed calls; each of `iterations` calls is timed on its own, so the
 * median and p99 describe single calls. Async functions are awaited one at a time.
 */
export async function measure(
  name: string,
  fn: () => unknown,
  { iterations = 200, warmup = 20 }: { iterations?: number; warmup?: number } = {},
): Promise<BenchResult> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const total = samples.reduce((sum, ms) => sum + ms, 0);
  return {
    name,
    iterations,
    medianMs: quantile(samples, 0.5),
    p99Ms: quantile(samples, 0.99),
    meanMs: total / iterations,
    opsPerSec: iterations / (total / 1000),
  };
}

/** Prints rows as an aligned plain-text table with the given column headers. */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  console.log(line(headers));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(row));
}
