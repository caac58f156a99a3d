import { PAID_RUNGS, type PaidRung, type RungBudgetUsd } from "@planfirst/subscription-ladder";

/**
 * Parses a `--budget` value such as `cheap=5,premium=0` (USD per budget window; 0 disables the
 * rung, rule B2). Only the paid rungs take budgets (rule B5); anything else is a problem naming
 * the accepted rungs.
 */
export function parseBudgetOverride(
  value: string,
): { ok: true; rungBudgetUsd: RungBudgetUsd } | { ok: false; problems: string[] } {
  const budgets: Partial<Record<PaidRung, number>> = {};
  const problems: string[] = [];
  for (const item of value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d+(?:\.\d+)?)$/.exec(item);
    if (!match) {
      problems.push(`--budget "${item}": write RUNG=USD, e.g. cheap=5 (0 disables the rung)`);
      continue;
    }
    const rung = match[1] as PaidRung;
    if (!PAID_RUNGS.includes(rung)) {
      problems.push(
        `--budget "${item}": only the paid rungs take a budget (${PAID_RUNGS.join(", ")}); plan and free rungs are limited by their quota`,
      );
      continue;
    }
    budgets[rung] = Number(match[2]);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rungBudgetUsd: budgets };
}
