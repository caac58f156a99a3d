import { isPaidRung, type LadderRung, PAID_RUNGS, type PaidRung, RUNG_ORDER } from "./rung";

/** Budget per paid rung in USD per budget window (a day by default). 0 disables a rung (B2). */
export type RungBudgetUsd = Partial<Readonly<Record<PaidRung, number>>>;

/** The budget inputs of `LadderOptions`. */
export interface RungBudgetOptions {
  /** Budget per paid rung in USD per budget window; absent rung = unlimited (B1). */
  rungBudgetUsd?: RungBudgetUsd;
  /**
   * Spent plus reserved USD of a paid rung in the current budget window; null (or no resolver)
   * when no spend accounting is available, which leaves the rung ungated (B3).
   */
  resolveRungSpendUsd?: (rung: PaidRung) => number | null;
}

/** Which rule of ladder.md §7 decided a rung's budget state. */
export type RungBudgetRule = "B1" | "B2" | "B3" | "B4";

/** Budget state of one paid rung, in USD. */
export interface RungBudgetReading {
  rung: PaidRung;
  /** Budget in USD per window; null when none is set. */
  limitUsd: number | null;
  /** Spent plus reserved USD in the window; null when no accounting is available. */
  spentUsd: number | null;
  exhausted: boolean;
  rule: RungBudgetRule;
}

/** Reads the budget state of a paid rung by B1–B4; calls `resolveRungSpendUsd` once. */
export function readRungBudget(rung: PaidRung, options: RungBudgetOptions): RungBudgetReading {
  const limitUsd = options.rungBudgetUsd?.[rung] ?? null;
  const spentUsd = options.resolveRungSpendUsd?.(rung) ?? null;
  if (limitUsd === null) return { rung, limitUsd, spentUsd, exhausted: false, rule: "B1" };
  // NaN counts as no budget to spend: disabled rather than unlimited.
  if (!(limitUsd > 0)) return { rung, limitUsd, spentUsd, exhausted: true, rule: "B2" };
  if (spentUsd === null) return { rung, limitUsd, spentUsd, exhausted: false, rule: "B3" };
  // `!(spent < limit)` so that a NaN spend gates the rung instead of opening it.
  return { rung, limitUsd, spentUsd, exhausted: !(spentUsd < limitUsd), rule: "B4" };
}

/**
 * Whether a rung's budget gates it out (ladder.md §7): no budget → false (B1); budget ≤ 0 → true,
 * the rung is disabled (B2); no spend accounting → false (B3); otherwise spent + reserved ≥ budget
 * (B4). Quota rungs have no budget and are never budget-exhausted.
 */
export function isRungBudgetExhausted(rung: LadderRung, options: RungBudgetOptions): boolean {
  return isPaidRung(rung) && readRungBudget(rung, options).exhausted;
}

/** One problem `validateRungBudgets` found, with the path and the values it accepts. */
export interface RungBudgetProblem {
  /** Dotted path from the budget map, e.g. `rungBudgetUsd.free`. */
  path: string;
  message: string;
  /** What would be accepted at `path`. */
  allowed: string;
}

/**
 * Rule B5: budgets belong to the paid rungs only. Returns every problem in a `rungBudgetUsd`
 * value read from config (empty array = valid): a budget on a quota rung (subscription, keyless,
 * free), an unknown rung name, or a value that is not a finite number. 0 is valid and disables
 * the rung (B2).
 */
export function validateRungBudgets(rungBudgetUsd: unknown): RungBudgetProblem[] {
  const paid = PAID_RUNGS.join(", ");
  if (rungBudgetUsd === undefined || rungBudgetUsd === null) return [];
  if (typeof rungBudgetUsd !== "object" || Array.isArray(rungBudgetUsd)) {
    return [
      {
        path: "rungBudgetUsd",
        message: "must be a map of rung to USD budget",
        allowed: `an object with keys ${paid}`,
      },
    ];
  }
  const problems: RungBudgetProblem[] = [];
  for (const [rung, value] of Object.entries(rungBudgetUsd)) {
    const path = `rungBudgetUsd.${rung}`;
    if (!isPaidRung(rung)) {
      const onQuotaRung = (RUNG_ORDER as readonly string[]).includes(rung);
      problems.push({
        path,
        message: onQuotaRung
          ? `"${rung}" is a quota rung: it is gated by quota, not by budget (B5)`
          : `"${rung}" is not a rung`,
        allowed: paid,
      });
    } else if (typeof value !== "number" || !Number.isFinite(value)) {
      problems.push({
        path,
        message: `must be a finite number of USD, got ${JSON.stringify(value) ?? String(value)}`,
        allowed: "a finite number ≥ 0 (0 disables the rung)",
      });
    } else if (value < 0) {
      problems.push({
        path,
        message: `must not be negative, got ${value}`,
        allowed: "a finite number ≥ 0 (0 disables the rung)",
      });
    }
  }
  return problems;
}
