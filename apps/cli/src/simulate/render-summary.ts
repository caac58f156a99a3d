import { RUNG_ORDER } from "@planfirst/subscription-ladder";
import type { Colors } from "../context";
import { formatDuration } from "../format/duration";
import { formatUsd } from "../format/money";
import { renderTable } from "../format/table";
import type { IdSummary, SimulationSummary } from "./summary-document";

/** Bad lines listed one by one before the rest are only counted. */
const BAD_LINES_LISTED = 20;

const count = (n: number) => n.toLocaleString("en-US");
const day = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "-");

function formatAllowance(amount: number, unit: string): string {
  return unit === "usd" ? `${formatUsd(amount)}` : `${count(Math.round(amount))} tokens`;
}

function formatWait(ms: number | null): string {
  return ms === null ? "until a plan is vouched for" : formatDuration(ms);
}

function savingText(summary: IdSummary): string {
  if (summary.servedMeteredUsd <= 0) return formatUsd(summary.savingUsd);
  const percent = (100 * summary.savingUsd) / summary.servedMeteredUsd;
  return `${formatUsd(summary.savingUsd)} (${percent.toFixed(1)}%)`;
}

/**
 * The terminal summary of `planfirst simulate`: the trace read, bad lines with file:line, the
 * plan windows and where each allowance came from, then per scenario and routing id the
 * requests served per rung, refusals and total wait, spend per rung, the all-metered cost and
 * the saving. With several scenarios, a side-by-side table follows.
 */
export function renderSimulationSummary(summary: SimulationSummary, color: Colors): string {
  const lines: string[] = [];
  lines.push(
    `${color.bold("planfirst simulate")}: ${count(summary.requests)} requests from ${count(summary.files)} file${summary.files === 1 ? "" : "s"}, ${day(summary.from)} → ${day(summary.to)}`,
  );
  if (summary.badLines.length > 0) {
    lines.push(color.yellow(`${count(summary.badLines.length)} bad lines skipped:`));
    for (const bad of summary.badLines.slice(0, BAD_LINES_LISTED)) {
      lines.push(`  ${bad.file}:${bad.line}  ${bad.reason}`);
    }
    if (summary.badLines.length > BAD_LINES_LISTED) {
      lines.push(`  … and ${count(summary.badLines.length - BAD_LINES_LISTED)} more (see --json)`);
    }
  }
  lines.push(`all-metered cost: ${formatUsd(summary.allMeteredUsd)}`);
  if (summary.unpricedRequests > 0) {
    lines.push(
      color.yellow(
        `  ${count(summary.unpricedRequests)} requests of unpriced models are not in it: ${summary.unpricedModels.join(", ")}`,
      ),
    );
  }
  lines.push("", color.bold("plans"));
  if (summary.plans.length === 0) lines.push("  (no plan connection in the config)");
  for (const plan of summary.plans) {
    const windows = plan.allowances.map((allowance) => {
      const calibration = summary.calibrations.find(
        (c) => c.target === plan.connectionId && c.windowId === allowance.windowId,
      );
      const origin = calibration
        ? `calibrated from ${count(calibration.readings)} real utilization readings`
        : allowance.origin === "config"
          ? "from the config"
          : "given";
      return `${allowance.windowId} ${formatAllowance(allowance.amount, allowance.unit)} per window (${origin})`;
    });
    lines.push(
      `  ${plan.connectionId} (${plan.provider}): ${windows.join("; ") || "no allowance"}`,
    );
    if (plan.windowsWithoutAllowance.length > 0) {
      lines.push(
        `    no allowance for the ${plan.windowsWithoutAllowance.join(", ")} window: not modelled`,
      );
    }
    if (plan.neverOnSubscription) {
      lines.push(color.yellow(`    never on auto/subscription: ${plan.neverOnSubscription}`));
    }
  }
  for (const scenario of summary.scenarios) {
    const budgets = Object.entries(scenario.rungBudgetUsd)
      .map(
        ([rung, usd]) => `${rung} ${usd !== undefined && usd <= 0 ? "off" : formatUsd(usd ?? 0)}`,
      )
      .join(", ");
    for (const id of scenario.ids) {
      lines.push("");
      const title = summary.scenarios.length > 1 ? `${id.id} [${scenario.label}]` : id.id;
      lines.push(`${color.bold(title)}  budgets: ${budgets || "none (unlimited)"}`);
      const rows = RUNG_ORDER.filter(
        (rung) => id.servedByRung[rung] > 0 || id.spendByRungUsd[rung] > 0,
      ).map((rung) => [rung, count(id.servedByRung[rung]), formatUsd(id.spendByRungUsd[rung])]);
      if (rows.length > 0) {
        lines.push(
          renderTable(
            [
              { header: "rung" },
              { header: "served", align: "end" },
              { header: "spend", align: "end" },
            ],
            rows,
            color,
          ).trimEnd(),
        );
      }
      lines.push(
        `refused: ${count(id.refused)}${id.refused > 0 ? `, total wait ${formatWait(id.totalWaitMs)}` : ""}`,
      );
      lines.push(
        `spend: ${formatUsd(id.spendUsd)} · same requests all-metered: ${formatUsd(id.servedMeteredUsd)} · saving: ${savingText(id)}`,
      );
      for (const window of id.windows) {
        lines.push(
          `  ${window.connectionId} ${window.windowId}: ran out ${window.exhaustedAt.length}×, reset ${window.resetAt.length}×, peak ${window.peakUsedPercent.toFixed(0)}% used${window.exhaustedAt[0] ? `, first out ${day(window.exhaustedAt[0])}` : ""}`,
        );
      }
      if (id.unpricedTargetsSkipped > 0) {
        lines.push(
          color.yellow(
            `  ${count(id.unpricedTargetsSkipped)} times an unpriced paid model was passed over`,
          ),
        );
      }
    }
  }
  if (summary.scenarios.length > 1) {
    lines.push("", color.bold("side by side"));
    const columns = [
      { header: "" },
      ...summary.scenarios.map((s) => ({ header: s.label, align: "end" as const })),
    ];
    const ids = summary.scenarios[0]!.ids.map((id) => id.id);
    const rows: string[][] = [];
    ids.forEach((idName, index) => {
      const cell = (pick: (id: IdSummary) => string) =>
        summary.scenarios.map((scenario) => pick(scenario.ids[index]!));
      rows.push([`${idName} plan`, ...cell((id) => count(id.servedByRung.subscription))]);
      rows.push([
        `${idName} paid`,
        ...cell((id) => count(id.servedByRung.cheap + id.servedByRung.premium)),
      ]);
      rows.push([`${idName} refused`, ...cell((id) => count(id.refused))]);
      rows.push([`${idName} spend`, ...cell((id) => formatUsd(id.spendUsd))]);
      rows.push([`${idName} saving`, ...cell((id) => formatUsd(id.savingUsd))]);
    });
    lines.push(renderTable(columns, rows, color).trimEnd());
  }
  lines.push(
    "",
    "Plan fees are not included: the saving is what the served requests would have cost metered, minus the spend. Refused requests are neither.",
  );
  return `${lines.join("\n")}\n`;
}
