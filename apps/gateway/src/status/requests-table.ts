import { RUNG_ORDER } from "@planfirst/subscription-ladder";
import type { RequestFilterQuery } from "../observability/request-log/request-filter";
import type { RequestRecord } from "../observability/request-log/request-record";
import { escapeHtml } from "./html";

/** Rows the status page's request table shows. */
export const REQUESTS_TABLE_LIMIT = 50;

/** What the status page's request table shows and how it was asked for. */
export interface RequestsTable {
  /** Newest first. */
  records: readonly RequestRecord[];
  /** The filter fields as the form sent them (echoed into the form). */
  query: RequestFilterQuery;
  /** The viewer sees every key's requests (the key filter is offered). */
  everyKey: boolean;
  /** Why the filter could not be applied, shown above the table; null when it was. */
  problem: string | null;
  /** False when `server.requestLog.enabled` is false. */
  enabled: boolean;
}

const COLUMNS = [
  "Time (UTC)",
  "Key",
  "Model asked",
  "Rung",
  "Connection",
  "Model served",
  "Status",
  "Outcome",
  "Tokens in / out",
  "Cost",
  "Latency",
];

/**
 * The status page's request table: a filter form (a plain GET of `/`, so it works without
 * JavaScript) and the newest requests the viewer may see. With JavaScript the page script
 * refreshes the rows from `/v1/requests` as they come (see `REQUESTS_SCRIPT`); it builds them
 * with the same cells as {@link requestCells}.
 */
export function renderRequestsSection(table: RequestsTable): string {
  const { query } = table;
  const field = (name: "key" | "model" | "status", label: string, placeholder: string) =>
    `<label>${label} <input name="${name}" value="${escapeHtml(query[name] ?? "")}" placeholder="${placeholder}" size="14"></label>`;
  const rungOptions = ["", ...RUNG_ORDER]
    .map(
      (rung) =>
        `<option value="${rung}"${query.rung === rung ? " selected" : ""}>${rung || "any"}</option>`,
    )
    .join("");
  const form = `<form method="get" action="/" id="requests-filter" class="filters">${table.everyKey ? field("key", "Key", "any") : ""}${field("model", "Model", "any")}<label>Rung <select name="rung">${rungOptions}</select></label>${field("status", "Status", "429, 4xx")}<button type="submit">Filter</button></form>`;
  const problem = table.problem
    ? `<p class="bad" role="alert">${escapeHtml(table.problem)}</p>`
    : "";
  const empty = table.enabled
    ? "No request recorded yet."
    : "The request log is off (server.requestLog.enabled: false).";
  const rows =
    table.records.length > 0
      ? table.records.map(requestRow).join("")
      : `<tr><td colspan="${COLUMNS.length}" class="muted">${escapeHtml(empty)}</td></tr>`;
  return `<section aria-labelledby="requests-h" class="requests" id="requests"><h2 id="requests-h">Requests</h2>${form}${problem}<div class="table-scroll"><table id="requests-table" data-limit="${REQUESTS_TABLE_LIMIT}"><thead><tr>${COLUMNS.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

/** The text of each cell of a record's row, in column order. */
function requestCells(record: RequestRecord): string[] {
  const tokens =
    record.inputTokens === null ? "–" : `${record.inputTokens} / ${record.outputTokens ?? 0}`;
  return [
    record.at.slice(0, 19).replace("T", " "),
    record.keyId,
    record.modelAsked ?? "–",
    record.rung ?? "–",
    record.connection ?? "–",
    record.modelServed ?? "–",
    String(record.status),
    record.outcome,
    tokens,
    record.costUsd > 0 ? `$${record.costUsd.toFixed(6)}` : "$0",
    `${Math.round(record.latencyMs)} ms`,
  ];
}

function requestRow(record: RequestRecord): string {
  const cells = requestCells(record)
    .map((text) => `<td>${escapeHtml(text)}</td>`)
    .join("");
  const attempts = record.attempts
    .map((a) => `${a.connection} ${a.outcome}${a.status === null ? "" : ` ${a.status}`}`)
    .join(" → ");
  return `<tr data-request-id="${escapeHtml(record.requestId)}" title="${escapeHtml(attempts)}">${cells}</tr>`;
}
