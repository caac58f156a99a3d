import type { GatewayStatus } from "@planfirst/gateway";
import type { Colors } from "../context";
import { formatDuration } from "../format/duration";
import { formatBudget, formatUsd } from "../format/money";
import { formatQuotaBar } from "../format/quota-bar";
import { renderTable } from "../format/table";

const RUNG_ORDER = ["subscription", "keyless", "free", "cheap", "premium"];

/**
 * The `status` view of a running gateway: per connection its billing, rungs and every quota
 * window with its reset countdown (or why it is disabled or cooling down); spend against each
 * paid rung's budget for the current window; requests per rung in the last hour.
 */
export function renderStatus(
  status: GatewayStatus,
  options: { nowMs: number; color: Colors; url: string },
): string {
  const { color, nowMs } = options;
  const lines = [
    `${color.bold("planfirst gateway")} ${options.url}`,
    `billing catalog ${status.catalog.version}, data date ${status.catalog.dataDate}; as of ${status.evaluatedAt}`,
    "",
    color.bold("Connections"),
  ];
  const rows: string[][] = [];
  for (const connection of status.connections) {
    const first = [
      connection.id,
      connection.provider,
      `${connection.billing}/${connection.overage}`,
      connection.rungs.join(","),
    ];
    const blank = first.map(() => "");
    const note = connectionNote(connection, nowMs, color);
    const windows = connection.quota?.windows ?? [];
    if (!connection.enabled || windows.length === 0) {
      const quota = !connection.enabled
        ? color.dim("—")
        : connection.quota
          ? formatQuotaBar(connection.quota, { nowMs, color })
          : color.dim("no reading yet");
      rows.push([...first, connection.quota && connection.enabled ? "binding" : "", quota, note]);
      continue;
    }
    windows.forEach((window, index) => {
      rows.push([
        ...(index === 0 ? first : blank),
        window.model ? `${window.windowId} (${window.model})` : window.windowId,
        formatQuotaBar(window, { nowMs, color }),
        index === 0 ? note : "",
      ]);
    });
  }
  lines.push(
    renderTable(
      [
        { header: "connection" },
        { header: "provider" },
        { header: "billing/overage" },
        { header: "rungs" },
        { header: "window" },
        { header: "quota" },
        { header: "state" },
      ],
      rows,
      color,
    ).trimEnd(),
    "",
    color.bold(
      `Budgets (paid rungs${status.budgets[0]?.ofKey ? `, spend of key ${status.budgets[0].ofKey}` : ""})`,
    ),
    renderTable(
      [
        { header: "rung" },
        { header: "window" },
        { header: "used/limit", align: "end" },
        { header: "reserved", align: "end" },
      ],
      status.budgets.map((budget) => [
        budget.rung,
        budget.windowKey,
        formatBudget(budget.spentUsd + budget.reservedUsd, budget.budgetUsd),
        formatUsd(budget.reservedUsd),
      ]),
      color,
    ).trimEnd(),
  );
  // A gateway older than key budgets sends none.
  const keyBudgets = status.keyBudgets ?? [];
  if (keyBudgets.length > 0) {
    lines.push(
      "",
      color.bold("Key budgets (every paid rung)"),
      renderTable(
        [
          { header: "key" },
          { header: "window" },
          { header: "used/limit", align: "end" },
          { header: "reserved", align: "end" },
          { header: "resets in" },
        ],
        keyBudgets.map((budget) => [
          budget.key,
          budget.windowKey,
          formatBudget(budget.spentUsd + budget.reservedUsd, budget.budgetUsd),
          formatUsd(budget.reservedUsd),
          formatDuration(Date.parse(budget.resetsAt) - nowMs),
        ]),
        color,
      ).trimEnd(),
    );
  }
  lines.push(
    "",
    `${color.bold("Requests in the last hour:")} ${requestsLine(status.requestsLastHour)}`,
  );
  return lines.join("\n");
}

function connectionNote(
  connection: GatewayStatus["connections"][number],
  nowMs: number,
  color: Colors,
): string {
  if (!connection.enabled)
    return color.yellow(`disabled: ${connection.disabledReason ?? "unknown reason"}`);
  if (connection.cooldownUntil) {
    const untilMs = Date.parse(connection.cooldownUntil);
    return color.yellow(
      `cooling down ${Number.isNaN(untilMs) ? `until ${connection.cooldownUntil}` : `for ${formatDuration(untilMs - nowMs)}`}`,
    );
  }
  if (connection.quota?.status === "exhausted") return color.red("exhausted");
  return color.green("ready");
}

function requestsLine(requests: Record<string, number>): string {
  const rungs = [
    ...RUNG_ORDER,
    ...Object.keys(requests).filter((rung) => !RUNG_ORDER.includes(rung)),
  ];
  return rungs.map((rung) => `${rung} ${requests[rung] ?? 0}`).join(", ");
}
