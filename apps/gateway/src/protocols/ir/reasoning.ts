import type { IrEffort, IrReasoning } from "./request";

/** Anthropic thinking budgets (tokens) below which the effort is low, then medium. */
const LOW_BELOW_TOKENS = 4096;
const MEDIUM_BELOW_TOKENS = 16384;

/** Smallest thinking budget Anthropic accepts, tokens. */
export const MIN_THINKING_BUDGET_TOKENS = 1024;

/** The effort level a thinking budget stands for: < 4096 low, < 16384 medium, else high. */
export function effortFromBudget(budgetTokens: number): IrEffort {
  if (budgetTokens < LOW_BELOW_TOKENS) return "low";
  if (budgetTokens < MEDIUM_BELOW_TOKENS) return "medium";
  return "high";
}

/** The thinking budget (tokens) an effort level stands for; 0 for none. */
export function budgetFromEffort(effort: IrEffort): number {
  switch (effort) {
    case "none":
      return 0;
    case "minimal":
    case "low":
      return 2048;
    case "medium":
      return 8192;
    default:
      return 24576;
  }
}

/**
 * The effort to send an OpenAI-protocol upstream, or undefined for none set. Anthropic `max` is
 * sent as `high`: every OpenAI reasoning model takes `high`, not every one takes `xhigh`.
 */
export function openAiEffort(reasoning: IrReasoning | undefined): string | undefined {
  if (!reasoning) return undefined;
  if (reasoning.disabled) return "none";
  const effort =
    reasoning.effort ??
    (reasoning.budgetTokens ? effortFromBudget(reasoning.budgetTokens) : undefined);
  if (effort === "max") return "high";
  return effort;
}
