import type { GatewayStatus } from "./gateway-status";

/**
 * The `GET /` status page: rungs, quota bars with reset countdowns, spend against budgets. One
 * self-contained HTML document (inline CSS, no script, no external asset), from the same data
 * as `/v1/status`.
 */
export function renderStatusPage(status: GatewayStatus, nowMs: number): string {
  const rows = status.connections
    .map((connection) => {
      const quota = connection.quota;
      const percent = quota?.remainingPercent;
      const bar =
        percent === null || percent === undefined
          ? `<span class="muted">${quota ? escapeHtml(quota.status) : "no reading yet"}</span>`
          : `<div class="bar"><div style="width:${Math.max(0, Math.min(100, percent)).toFixed(0)}%"></div></div> ${percent.toFixed(0)}%`;
      const reset = quota?.resetAt ? countdown(quota.resetAt, nowMs) : "";
      const state = connection.enabled
        ? connection.cooldownUntil
          ? `cooling until ${escapeHtml(connection.cooldownUntil)}`
          : "ready"
        : escapeHtml(connection.disabledReason ?? "disabled");
      return `<tr><td>${escapeHtml(connection.id)}</td><td>${escapeHtml(connection.provider)}</td><td>${escapeHtml(connection.rungs.join(", "))}</td><td>${escapeHtml(connection.billing)} / ${escapeHtml(connection.overage)}</td><td>${bar}</td><td>${escapeHtml(reset)}</td><td>${state}</td></tr>`;
    })
    .join("\n");
  const budgets = status.budgets
    .map(
      (budget) =>
        `<tr><td>${escapeHtml(budget.rung)}</td><td>${escapeHtml(budget.windowKey)}</td><td>$${budget.spentUsd.toFixed(6)}</td><td>$${budget.reservedUsd.toFixed(6)}</td><td>${budget.budgetUsd === null ? "unbudgeted" : `$${budget.budgetUsd.toFixed(2)}`}</td></tr>`,
    )
    .join("\n");
  const perRung = Object.entries(status.requestsLastHour)
    .map(([rung, count]) => `<li>${escapeHtml(rung)}: ${count}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>planfirst gateway</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;margin-bottom:1.5rem}td,th{padding:.3rem .7rem;border-bottom:1px solid #ddd;text-align:left}.bar{display:inline-block;width:120px;height:10px;background:#eee;vertical-align:middle}.bar div{height:10px;background:#3a7}.muted{color:#888}</style>
</head><body>
<h1>planfirst gateway</h1>
<p>Catalog ${escapeHtml(status.catalog.version)}, data date ${escapeHtml(status.catalog.dataDate)}. Evaluated ${escapeHtml(status.evaluatedAt)}. Routing ids: auto/subscription, auto/thrifty.</p>
<h2>Connections</h2>
<table><tr><th>connection</th><th>provider</th><th>rung</th><th>billing / overage</th><th>quota</th><th>resets in</th><th>state</th></tr>
${rows}
</table>
<h2>Spend against budgets</h2>
<table><tr><th>rung</th><th>window</th><th>spent</th><th>reserved</th><th>budget</th></tr>
${budgets}
</table>
<h2>Requests per rung, last hour</h2>
<ul>${perRung || "<li>none yet</li>"}</ul>
</body></html>`;
}

function countdown(iso: string, nowMs: number): string {
  const ms = Date.parse(iso) - nowMs;
  if (!Number.isFinite(ms)) return "";
  if (ms <= 0) return "reset passed";
  const minutes = Math.ceil(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
