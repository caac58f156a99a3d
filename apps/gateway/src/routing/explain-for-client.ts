import { describeRungBudget } from "@planfirst/subscription-ladder";
import { type ClientIdentity, isAdmin } from "./client-identity";
import type { ModelExplanation } from "./explain-model";

type BudgetReading = Parameters<typeof describeRungBudget>[0];

/**
 * The explanation as a client key sees it. An admin key gets `explanation` itself. For a client
 * key every paid rung's budget shows its own settled spend (`ownSpendUsd`, USD by rung) where the
 * ladder read every key's, and the reasons say whether the rung's budget is spent without the
 * amount others spent ("cheap within budget (B4)"). The verdicts stay the ladder's: a rung
 * other keys spent is out for this key too.
 */
export function explanationForClient(
  explanation: ModelExplanation,
  client: ClientIdentity,
  ownSpendUsd: Readonly<Record<string, number>>,
): ModelExplanation {
  if (isAdmin(client)) return explanation;
  // Each B4 sentence the ladder wrote, and what the key is told instead.
  const restated = new Map<string, string>();
  const own = <Budget extends BudgetReading>(budget: Budget): Budget => {
    if (budget.rule === "B4") {
      restated.set(
        describeRungBudget(budget),
        budget.exhausted ? `${budget.rung} budget spent (B4)` : `${budget.rung} within budget (B4)`,
      );
    }
    return {
      ...budget,
      spentUsd: budget.spentUsd === null ? null : (ownSpendUsd[budget.rung] ?? 0),
    };
  };
  const budgets = explanation.ladder.budgets.map(own);
  const connectionsOf = (candidate: ModelExplanation["ladder"]["candidates"][number]) =>
    candidate.connections.map((connection) => ({
      ...connection,
      budget: connection.budget === null ? null : own(connection.budget),
    }));
  const withConnections = explanation.ladder.candidates.map((candidate) => ({
    ...candidate,
    connections: connectionsOf(candidate),
  }));
  const restate = (reason: string): string => {
    let text = reason;
    for (const [said, instead] of restated) text = text.replaceAll(said, instead);
    return text;
  };
  const candidates = withConnections.map((candidate) => ({
    ...candidate,
    reason: restate(candidate.reason),
    connections: candidate.connections.map((connection) => ({
      ...connection,
      reason: restate(connection.reason),
    })),
  }));
  return {
    ...explanation,
    ladder: {
      ...explanation.ladder,
      budgets: budgets.map((budget) => ({ ...budget, reason: restate(budget.reason) })),
      candidates,
    },
  };
}
