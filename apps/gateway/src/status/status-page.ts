import type { GatewayStatus, StatusWindow } from "./gateway-status";
import type { HistoryBucket } from "./history-store";
import { escapeHtml } from "./html";
import { formatSpan } from "./pace";
import { PAGE_SCRIPT } from "./page-script";
import { PAGE_STYLE } from "./page-style";
import { REQUESTS_SCRIPT } from "./requests-script";
import { type RequestsTable, renderRequestsSection } from "./requests-table";
import { type ChartSeries, cssName, lineChart, requestsChart } from "./status-charts";

type StatusConnection = GatewayStatus["connections"][number];

/**
 * The `GET /` status page: one self-contained HTML document (inline CSS, SVG and a small script,
 * no external asset). Without JavaScript it is a complete snapshot; with it, the `<main>` is
 * replaced by every `/v1/status/events` push and the reset countdowns tick. `requests`, when
 * given, adds the request table after `<main>` (its rows refresh on their own).
 */
export function renderStatusPage(
  status: GatewayStatus,
  history: readonly HistoryBucket[],
  requests?: RequestsTable,
): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>planfirst status</title>
<style>${PAGE_STYLE}</style>
</head><body>
<a class="skip" href="#ladder">Skip to the ladder</a>
<header class="top"><h1>planfirst</h1><p id="live" role="status" aria-live="polite">snapshot</p></header>
<main id="status" data-now="${escapeHtml(status.evaluatedAt)}">
${renderStatusMain(status, history)}
</main>
${requests ? `<div class="below">${renderRequestsSection(requests)}</div>` : ""}
<script>${PAGE_SCRIPT}</script>${requests ? `<script>${REQUESTS_SCRIPT}</script>` : ""}
</body></html>`;
}

/** The content of the page's `<main>`: what each live push replaces. */
export function renderStatusMain(status: GatewayStatus, history: readonly HistoryBucket[]): string {
  const nowMs = Date.parse(status.evaluatedAt);
  return [
    `<p class="meta">Catalog ${escapeHtml(status.catalog.version)}, data date ${escapeHtml(status.catalog.dataDate)}. As of <time datetime="${escapeHtml(status.evaluatedAt)}">${escapeHtml(status.evaluatedAt.replace("T", " ").slice(0, 19))} UTC</time>.</p>`,
    servedSummary(status),
    keyBudgetsSection(status),
    `<section aria-labelledby="ladder-h"><h2 id="ladder-h">The ladder</h2><ol class="ladder" id="ladder">${status.rungOrder.map((rung, index) => rungSection(status, rung, index, nowMs)).join("")}</ol></section>`,
    historySection(status, history, nowMs),
  ].join("\n");
}

function servedSummary(status: GatewayStatus): string {
  const entries = Object.entries(status.lastServed);
  if (entries.length === 0) {
    return `<section class="served-summary" aria-label="Last served"><p>No request served yet.</p></section>`;
  }
  const items = entries
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([id, served]) =>
        `<li data-served-id="${escapeHtml(id)}"><b>${escapeHtml(id)}</b> → <span class="rung-name">${escapeHtml(served.rung)}</span> (${escapeHtml(served.connection)}, ${escapeHtml(served.model)}) at <time datetime="${escapeHtml(served.at)}">${escapeHtml(served.at.slice(11, 19))}</time></li>`,
    )
    .join("");
  return `<section class="served-summary" aria-label="Last served"><h2>Last served</h2><ul>${items}</ul></section>`;
}

function rungSection(status: GatewayStatus, rung: string, index: number, nowMs: number): string {
  const connections = status.connections.filter((c) => c.rungs.includes(rung));
  const servedHere = Object.entries(status.lastServed)
    .filter(([, served]) => served.rung === rung)
    .map(([id]) => id)
    .sort();
  const marker = servedHere.length
    ? `<span class="marker" data-marker="${escapeHtml(servedHere.join(" "))}">last served: ${servedHere.map(escapeHtml).join(", ")}</span>`
    : "";
  const budget = status.budgets.find((b) => b.rung === rung);
  const cards = connections.map((c) => connectionCard(c, nowMs)).join("");
  const cache = budget ? cacheLine(status, rung) : "";
  return `<li class="rung rung-${cssName(rung)}${servedHere.length ? " served" : ""}" id="rung-${cssName(rung)}" data-rung="${escapeHtml(rung)}"><div class="rung-head"><h3><span class="idx">${index}</span> ${escapeHtml(rung)}</h3>${marker}</div>${budget ? budgetMeter(budget) : ""}${cache}<div class="cards">${cards || `<p class="muted">no connection on this rung</p>`}</div></li>`;
}

/** A paid rung's prompt cache reads over the last hour, from its spend records. */
function cacheLine(status: GatewayStatus, rung: string): string {
  const reads = status.cacheReadsLastHour;
  if (reads === null) {
    return `<p class="cache muted" data-cache="${escapeHtml(rung)}">cache reads: the spend records cannot be read right now</p>`;
  }
  const rungReads = reads[rung];
  if (!rungReads || rungReads.readPercent === null) {
    return `<p class="cache muted" data-cache="${escapeHtml(rung)}">no input booked in the last hour</p>`;
  }
  const text = `${rungReads.readPercent.toFixed(0)}% of ${rungReads.inputTokens.toLocaleString("en-US")} input tokens read from the prompt cache in the last hour`;
  return `<p class="cache" data-cache="${escapeHtml(rung)}">${escapeHtml(text)}</p>`;
}

function connectionCard(connection: StatusConnection, nowMs: number): string {
  const windows = connection.quota?.windows ?? [];
  const quota = !connection.enabled
    ? ""
    : windows.length > 0
      ? windows.map((w) => windowBar(connection.id, w, nowMs)).join("")
      : connection.quota
        ? `<p class="muted">${escapeHtml(connection.quota.status)} (no windows reported)</p>`
        : `<p class="muted">no quota reading yet</p>`;
  const evidence = connection.overageEvidence
    ? `overage evidence: <b>${escapeHtml(connection.overageEvidence.evidence)}</b> (${escapeHtml(connection.overageEvidence.source)}, ${escapeHtml(connection.overageEvidence.observedAt.slice(11, 19))}${connection.overageEvidence.detail ? `, ${escapeHtml(connection.overageEvidence.detail)}` : ""})`
    : "overage evidence: no evidence";
  const probe = connection.probeInFlight
    ? `<p class="warn">a probe is in flight (one request to get a fresh reading)</p>`
    : "";
  const waiting = connection.waiting ? waitingLine(connection.waiting, nowMs) : "";
  const out = connection.out.length
    ? `<ul class="out" aria-label="why it is out">${connection.out.map((o) => `<li><b>${escapeHtml(o.routingId)}</b> (${escapeHtml(o.model)}): ${escapeHtml(o.reason)}</li>`).join("")}</ul>`
    : "";
  const sessions = `<p class="sessions" data-sessions="${connection.liveSessions}">${connection.liveSessions === 1 ? "1 live session" : `${connection.liveSessions} live sessions`}</p>`;
  return `<article class="card" data-connection="${escapeHtml(connection.id)}" aria-labelledby="c-${cssName(connection.id)}"><h4 id="c-${cssName(connection.id)}">${escapeHtml(connection.id)} <span class="muted">${escapeHtml(connection.provider)}</span></h4><p class="state">${stateOf(connection, nowMs)}</p><p class="billing">${escapeHtml(connection.billing)} / ${escapeHtml(connection.overage)}; ${evidence}</p>${sessions}${probe}${waiting}${quota}${out}</article>`;
}

/** How many requests wait for the plan to come back, and until when. */
function waitingLine(waiting: NonNullable<StatusConnection["waiting"]>, nowMs: number): string {
  const count = `${waiting.requests} ${waiting.requests === 1 ? "request waits" : "requests wait"}`;
  const until = waiting.returnAt
    ? ` for its return at <time datetime="${escapeHtml(waiting.returnAt)}">${escapeHtml(waiting.returnAt.slice(11, 19))}</time> (${countdown(waiting.returnAt, nowMs, "resets in")})`
    : " for its return";
  return `<p class="warn waiting" data-waiting="${waiting.requests}">${count}${until}</p>`;
}

function stateOf(connection: StatusConnection, nowMs: number): string {
  if (!connection.enabled) {
    return `<span class="bad">disabled: ${escapeHtml(connection.disabledReason ?? "unknown reason")}</span>`;
  }
  if (connection.cooldownUntil) {
    return `<span class="warn">cooling down until <time datetime="${escapeHtml(connection.cooldownUntil)}">${escapeHtml(connection.cooldownUntil.slice(11, 19))}</time> (${countdown(connection.cooldownUntil, nowMs, "ends in")})</span>`;
  }
  if (connection.quota?.status === "exhausted") return `<span class="bad">exhausted</span>`;
  return `<span class="ok">ready</span>`;
}

function windowBar(connectionId: string, window: StatusWindow, nowMs: number): string {
  const scope = window.model ? `model ${window.model}` : "account";
  const name = `${window.windowId} window (${scope})`;
  const percent = window.remainingPercent;
  const pace = `<p class="pace">${escapeHtml(window.pace.summary)}</p>`;
  const reset = window.resetAt ? countdown(window.resetAt, nowMs, "resets in") : "reset unknown";
  if (percent === null) {
    return `<div class="window" data-window="${escapeHtml(`${connectionId}:${window.windowId}`)}"><div class="wlabel">${escapeHtml(name)}: <span class="muted">remaining unknown (${escapeHtml(window.status)})</span></div><div class="wmeta">${reset}</div>${pace}</div>`;
  }
  const value = Math.max(0, Math.min(100, percent));
  const level = value <= 5 ? "low" : value <= 25 ? "mid" : "high";
  return `<div class="window" data-window="${escapeHtml(`${connectionId}:${window.windowId}`)}"><div class="wlabel">${escapeHtml(name)}: <b class="pct">${value.toFixed(0)}%</b> remaining</div><div class="bar ${level}" role="meter" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${value.toFixed(0)}" aria-label="${escapeHtml(`${name}: ${value.toFixed(0)}% remaining`)}"><span style="width:${value.toFixed(1)}%"></span></div><div class="wmeta">${reset}</div>${pace}</div>`;
}

/** The budgets of client keys (an admin sees every key's, a client key its own). */
function keyBudgetsSection(status: GatewayStatus): string {
  if (status.keyBudgets.length === 0) return "";
  const items = status.keyBudgets
    .map((budget) => {
      const label = `key ${budget.key}: spent $${budget.spentUsd.toFixed(4)} of $${budget.budgetUsd.toFixed(2)} this ${budget.window} (${budget.windowKey}), reserved $${budget.reservedUsd.toFixed(4)} apart`;
      return `<li data-key-budget="${escapeHtml(budget.key)}">${spendBar(label, budget.spentUsd, budget.reservedUsd, budget.budgetUsd)}<p class="muted">${countdown(budget.resetsAt, Date.parse(status.evaluatedAt), "resets in")}</p></li>`;
    })
    .join("");
  return `<section aria-labelledby="keys-h" class="key-budgets"><h2 id="keys-h">Key budgets</h2><ul>${items}</ul></section>`;
}

function budgetMeter(budget: GatewayStatus["budgets"][number]): string {
  const spent = `$${budget.spentUsd.toFixed(4)}`;
  const reserved = `$${budget.reservedUsd.toFixed(4)}`;
  // A client key's view carries its own settled spend, never the rung's total.
  const whose = budget.ofKey === null ? "spent" : `key ${budget.ofKey} spent`;
  const apart = budget.ofKey === null ? `, reserved ${reserved} apart` : "";
  if (budget.budgetUsd === null) {
    return `<p class="budget">${escapeHtml(whose)} ${spent} this ${escapeHtml(budget.window)} (${escapeHtml(budget.windowKey)})${apart}; no budget set</p>`;
  }
  const limit = budget.budgetUsd;
  const of = budget.ofKey === null ? "" : "the rung's ";
  const label = `${whose} ${spent} of ${of}$${limit.toFixed(2)} this ${budget.window} (${budget.windowKey})${apart}`;
  return `<div class="budget">${spendBar(label, budget.spentUsd, budget.reservedUsd, limit)}</div>`;
}

/** A spend meter: `label`, then a bar of spent and reserved against `limit` (USD). */
function spendBar(label: string, spentUsd: number, reservedUsd: number, limit: number): string {
  const spentPct = limit > 0 ? Math.min(100, (spentUsd / limit) * 100) : 100;
  const reservedPct = limit > 0 ? Math.min(100 - spentPct, (reservedUsd / limit) * 100) : 0;
  return `<p>${escapeHtml(label)}</p><div class="bar spend" role="meter" aria-valuemin="0" aria-valuemax="${limit}" aria-valuenow="${spentUsd}" aria-label="${escapeHtml(label)}"><span style="width:${spentPct.toFixed(1)}%"></span><i style="width:${reservedPct.toFixed(1)}%"></i></div>`;
}

/** A countdown element the page script keeps ticking (server-rendered text included). */
function countdown(iso: string, nowMs: number, prefix: string): string {
  return `<time class="countdown" datetime="${escapeHtml(iso)}" data-until="${escapeHtml(iso)}" data-prefix="${escapeHtml(prefix)}">${escapeHtml(countdownText(Date.parse(iso) - nowMs, prefix))}</time>`;
}

/**
 * The countdown text the server renders and the page script repeats each second: "resets in
 * 1 h 59 min", "resets in 4 min 30 s", "reset passed".
 */
function countdownText(ms: number, prefix: string): string {
  if (!Number.isFinite(ms)) return "";
  if (ms <= 0) return prefix === "resets in" ? "reset passed" : "ended";
  const seconds = Math.ceil(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h >= 48) return `${prefix} ${formatSpan(ms)}`;
  return h > 0 ? `${prefix} ${h} h ${m} min` : `${prefix} ${m} min ${s} s`;
}

function historySection(
  status: GatewayStatus,
  history: readonly HistoryBucket[],
  nowMs: number,
): string {
  const remaining: ChartSeries[] = [];
  const spent: ChartSeries[] = [];
  const seriesNames = new Set<string>();
  for (const bucket of history)
    for (const name of Object.keys(bucket.levels)) seriesNames.add(name);
  let colour = 0;
  for (const name of [...seriesNames].sort()) {
    const points = history
      .map((bucket) => bucket.levels[name])
      .filter((r) => r !== undefined)
      .map((r) => ({ atMs: r.atMs, value: r.value }));
    if (name.startsWith("remaining:")) {
      const [, connection, ...windowId] = name.split(":");
      const isPlan = status.connections.some(
        (c) => c.id === connection && c.rungs.includes("subscription"),
      );
      if (!isPlan) continue;
      remaining.push({
        label: `${connection} ${windowId.join(":")}`,
        className: `s${colour++ % 6}`,
        points,
      });
    } else if (name.startsWith("spent:")) {
      const rung = name.slice("spent:".length);
      spent.push({ label: rung, className: `rung-${cssName(rung)}`, points });
    }
  }
  return `<section aria-labelledby="history-h" class="history"><h2 id="history-h">Last 24 hours</h2>${requestsChart(history, status.rungOrder, nowMs)}${lineChart({ id: "chart-remaining", title: "Plan windows, remaining %", series: remaining, nowMs, maxValue: 100, unit: "%" })}${lineChart({ id: "chart-spend", title: "Spend per paid rung (budget window)", series: spent, nowMs, unit: "$" })}</section>`;
}

/** The login form shown at `GET /` when client keys are configured and none was presented. */
export function renderLoginPage(message: string | null): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>planfirst status: sign in</title>
<style>${PAGE_STYLE}</style></head><body>
<main class="login"><h1>planfirst</h1>
<form method="post" action="/status/login"><label for="key">Client key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Open the status page</button></form>
${message ? `<p class="bad" role="alert">${escapeHtml(message)}</p>` : ""}
<p class="muted">The key is sent once in the form body; the page then keeps an HttpOnly session cookie that opens only the status page.</p>
</main></body></html>`;
}
