/**
 * US dollars for people: two decimals from one cent up (`$4.20`, `$1,234.50`), two significant
 * digits (at most six decimals) below a cent so micro-costs stay visible (`$0.000005`), `$0.00` for zero.
 * Negative amounts keep their sign (`-$1.00`). Non-finite values print as `n/a`.
 *
 * @param amountUsd US dollars
 */
export function formatUsd(amountUsd: number): string {
  if (!Number.isFinite(amountUsd)) return "n/a";
  const sign = amountUsd < 0 ? "-" : "";
  const absolute = Math.abs(amountUsd);
  if (absolute === 0) return "$0.00";
  if (absolute < 0.000001) return `${sign}<$0.000001`;
  if (absolute < 0.01) {
    // Two significant digits, at most six decimals (micro-dollars, the receipts' precision).
    const digits = Math.min(6, 1 - Math.floor(Math.log10(absolute)));
    return `${sign}$${absolute.toFixed(digits).replace(/0+$/, "")}`;
  }
  return `${sign}$${absolute.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * Spend against a budget: `$1.20 / $5.00`; `$1.20 / no limit` without a budget;
 * `disabled` for a budget of 0 or less (rule B2).
 *
 * @param spentUsd US dollars spent (and reserved) in the current window
 * @param limitUsd the rung budget in US dollars; null or undefined = none
 */
export function formatBudget(
  spentUsd: number | null | undefined,
  limitUsd: number | null | undefined,
): string {
  if (limitUsd !== null && limitUsd !== undefined && limitUsd <= 0) return "disabled";
  const spent = spentUsd === null || spentUsd === undefined ? "n/a" : formatUsd(spentUsd);
  const limit = limitUsd === null || limitUsd === undefined ? "no limit" : formatUsd(limitUsd);
  return `${spent} / ${limit}`;
}
