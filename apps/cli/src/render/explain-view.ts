import type { ModelExplanation } from "@planfirst/gateway";
import type { Colors } from "../context";
import { formatBudget } from "../format/money";
import { formatQuotaBar } from "../format/quota-bar";
import { renderTable } from "../format/table";

type LadderRow = ModelExplanation["ladder"]["candidates"][number]["connections"][number];

const RUNG_ORDER = ["subscription", "keyless", "free", "cheap", "premium"];

/**
 * The `explain` table: one row per (candidate, connection) the ladder judged plus one per
 * connection the gateway kept out before it (disabled, cooling down), ordered by rung; then
 * the targets a request would try, in order. Times are measured from `nowMs`.
 */
export function renderExplanation(
  explanation: ModelExplanation,
  options: { nowMs: number; color: Colors; source: string },
): string {
  const { color, nowMs } = options;
  const ladderRows = explanation.ladder.candidates
    .flatMap((candidate) => candidate.connections)
    .map((connection, order) => ({ connection, order }))
    .sort((a, b) => a.connection.rungIndex - b.connection.rungIndex || a.order - b.order)
    .map(({ connection }) => ladderRow(connection, nowMs, color));
  const excludedRows = explanation.excluded.map((exclusion) => [
    color.dim("—"),
    exclusion.model,
    exclusion.connectionId,
    color.dim("—"),
    color.dim("—"),
    color.dim("—"),
    `${color.red("out")} ${exclusion.reason}`,
  ]);
  const header = [
    `${color.bold(explanation.model)}: ${explanation.kind === "auto" ? `auto id, ${explanation.grouping} grouping${explanation.category ? `, category ${explanation.category}` : ""}` : "concrete model"}`,
    `${options.source}, evaluated ${new Date(explanation.evaluatedAtMs).toISOString()}`,
    "",
  ];
  const table = renderTable(
    [
      { header: "rung" },
      { header: "candidate" },
      { header: "connection" },
      { header: "billing/overage" },
      { header: "quota" },
      { header: "budget used/limit" },
      { header: "in/out" },
    ],
    [...ladderRows, ...excludedRows],
    color,
  );
  const footer: string[] = [""];
  if (explanation.targets.length === 0) {
    const retry = explanation.ladder.earliestPlanResetAt
      ? `; earliest plan reset ${explanation.ladder.earliestPlanResetAt}`
      : "";
    footer.push(
      color.red(`no target: a request for ${explanation.model} would be refused${retry}`),
    );
  } else {
    const session = explanation.session;
    if (session) {
      footer.push(`session ${session.hash}: ${sessionAffinityText(session)}, ${session.why}`);
    }
    footer.push(
      color.bold(
        session
          ? "a request of this session would try, in order:"
          : "a request would try, in order:",
      ),
    );
    explanation.targets.forEach((target, index) => {
      footer.push(`  ${index + 1}. ${target.connection} → ${target.model} (${target.rung})`);
    });
  }
  return [...header, table.trimEnd(), ...footer].join("\n");
}

function sessionAffinityText(session: NonNullable<ModelExplanation["session"]>): string {
  return session.reason
    ? `affinity=${session.affinity} (${session.reason})`
    : `affinity=${session.affinity}`;
}

function ladderRow(connection: LadderRow, nowMs: number, color: Colors): string[] {
  const billing = `${connection.billing}/${connection.overage}`;
  const safe = connection.billing === "subscription" && connection.overage === "hard-stop";
  const quota = connection.quota.present
    ? formatQuotaBar(
        { remainingPercent: connection.quota.remainingPercent, resetAt: connection.quota.resetAt },
        { nowMs, color },
      ) + (connection.quota.stale ? color.yellow(" (stale)") : "")
    : RUNG_ORDER.indexOf(connection.rung) >= 3
      ? color.dim("n/a")
      : color.dim("no reading");
  const budget = connection.budget
    ? formatBudget(connection.budget.spentUsd, connection.budget.limitUsd)
    : color.dim("—");
  const verdict = connection.verdict === "in" ? color.green("in") : color.red("out");
  return [
    connection.rung,
    connection.model,
    connection.connectionId ?? color.dim("(any)"),
    safe || connection.billing === "keyless" ? color.green(billing) : billing,
    quota,
    budget,
    `${verdict} ${connection.reason}`,
  ];
}
