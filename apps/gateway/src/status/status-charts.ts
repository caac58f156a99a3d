import type { HistoryBucket } from "./history-store";
import { escapeHtml } from "./html";

/** Span the history charts cover: the last 24 hours, in milliseconds. */
export const CHART_SPAN_MS = 86_400_000;
/** Width of one bar of the requests chart: 15 minutes, in milliseconds. */
const CHART_BAR_MS = 900_000;

const WIDTH = 960;
const HEIGHT = 160;
const PAD_LEFT = 40;
const PAD_BOTTOM = 20;
const PLOT_W = WIDTH - PAD_LEFT - 8;
const PLOT_H = HEIGHT - PAD_BOTTOM - 8;

/** One line of a line chart: its label and readings (epoch ms, value). */
export interface ChartSeries {
  label: string;
  /** CSS class that colours it (`s0`…`s7`, or `rung-<name>`). */
  className: string;
  points: { atMs: number; value: number }[];
}

/** Requests per rung per 15-minute bar over the last 24 hours, from five-minute buckets. */
function requestBars(
  buckets: readonly HistoryBucket[],
  nowMs: number,
): { startMs: number; perRung: Record<string, number> }[] {
  const endMs = Math.ceil(nowMs / CHART_BAR_MS) * CHART_BAR_MS;
  const fromMs = endMs - CHART_SPAN_MS;
  const bars = new Map<number, Record<string, number>>();
  for (const bucket of buckets) {
    if (bucket.startMs < fromMs || bucket.startMs >= endMs) continue;
    const start = Math.floor(bucket.startMs / CHART_BAR_MS) * CHART_BAR_MS;
    const bar = bars.get(start) ?? {};
    for (const [rung, count] of Object.entries(bucket.requests)) {
      bar[rung] = (bar[rung] ?? 0) + count;
    }
    bars.set(start, bar);
  }
  return [...bars.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([startMs, perRung]) => ({ startMs, perRung }));
}

/**
 * The stacked bar chart of requests per rung over the last 24 hours, as inline SVG with a
 * `<title>` and a text summary for screen readers (totals per rung).
 */
export function requestsChart(
  buckets: readonly HistoryBucket[],
  rungOrder: readonly string[],
  nowMs: number,
): string {
  const bars = requestBars(buckets, nowMs);
  const endMs = Math.ceil(nowMs / CHART_BAR_MS) * CHART_BAR_MS;
  const fromMs = endMs - CHART_SPAN_MS;
  const totals: Record<string, number> = {};
  let peak = 0;
  for (const bar of bars) {
    let sum = 0;
    for (const [rung, count] of Object.entries(bar.perRung)) {
      totals[rung] = (totals[rung] ?? 0) + count;
      sum += count;
    }
    peak = Math.max(peak, sum);
  }
  const order = [...rungOrder, ...Object.keys(totals).filter((r) => !rungOrder.includes(r))];
  const barW = (PLOT_W * CHART_BAR_MS) / CHART_SPAN_MS;
  const scale = peak > 0 ? PLOT_H / peak : 0;
  const rects: string[] = [];
  for (const bar of bars) {
    const x = PAD_LEFT + ((bar.startMs - fromMs) / CHART_SPAN_MS) * PLOT_W;
    let y = 8 + PLOT_H;
    for (const rung of order) {
      const count = bar.perRung[rung] ?? 0;
      if (count === 0) continue;
      const h = count * scale;
      y -= h;
      rects.push(
        `<rect class="rung-${cssName(rung)}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, barW - 1).toFixed(1)}" height="${h.toFixed(1)}"><title>${escapeHtml(rung)}: ${count}</title></rect>`,
      );
    }
  }
  const summary =
    order
      .filter((rung) => totals[rung])
      .map((rung) => `${rung} ${totals[rung]}`)
      .join(", ") || "no requests";
  const legend = order
    .filter((rung) => totals[rung])
    .map(
      (rung) =>
        `<li><span class="swatch rung-${cssName(rung)}"></span>${escapeHtml(rung)} ${totals[rung]}</li>`,
    )
    .join("");
  return figure(
    "chart-requests",
    "Requests per rung, last 24 h",
    `Requests per rung in the last 24 hours: ${summary}.`,
    `${axes(fromMs, endMs, peak, "")}${rects.join("")}`,
    legend,
  );
}

/**
 * A line chart over the last 24 hours (remaining percent of plan windows, spend of paid rungs),
 * as inline SVG with a `<title>` and the latest value of each line in text.
 */
export function lineChart(options: {
  id: string;
  title: string;
  series: readonly ChartSeries[];
  nowMs: number;
  /** Fixed top of the value axis (100 for percent); default the highest value. */
  maxValue?: number;
  unit: "%" | "$";
}): string {
  const { series, nowMs } = options;
  const endMs = nowMs;
  const fromMs = endMs - CHART_SPAN_MS;
  let peak = options.maxValue ?? 0;
  if (options.maxValue === undefined) {
    for (const s of series) for (const p of s.points) peak = Math.max(peak, p.value);
  }
  const format = (value: number) =>
    options.unit === "%" ? `${value.toFixed(0)} %` : `$${value.toFixed(value < 1 ? 4 : 2)}`;
  const lines: string[] = [];
  const latest: string[] = [];
  const legend: string[] = [];
  for (const s of series) {
    const points = s.points.filter((p) => p.atMs >= fromMs && p.atMs <= endMs);
    if (points.length === 0) continue;
    const coords = points.map((p) => {
      const x = PAD_LEFT + ((p.atMs - fromMs) / CHART_SPAN_MS) * PLOT_W;
      const y = 8 + PLOT_H - (peak > 0 ? (p.value / peak) * PLOT_H : 0);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    });
    if (coords.length === 1) coords.push(coords[0]!);
    lines.push(
      `<polyline class="line ${s.className}" points="${coords.join(" ")}"><title>${escapeHtml(s.label)}</title></polyline>`,
    );
    const last = points[points.length - 1]!;
    latest.push(`${s.label} ${format(last.value)}`);
    legend.push(
      `<li><span class="swatch ${s.className}"></span>${escapeHtml(s.label)} ${escapeHtml(format(last.value))}</li>`,
    );
  }
  return figure(
    options.id,
    options.title,
    `${options.title}: ${latest.join(", ") || "no readings"}.`,
    `${axes(fromMs, endMs, peak, options.unit)}${lines.join("")}`,
    legend.join(""),
  );
}

function figure(id: string, title: string, description: string, body: string, legend: string) {
  return `<figure class="chart" id="${id}"><figcaption>${escapeHtml(title)}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-t"><title id="${id}-t">${escapeHtml(description)}</title>${body}</svg><ul class="legend">${legend || "<li>no data yet</li>"}</ul></figure>`;
}

function axes(fromMs: number, endMs: number, peak: number, unit: string): string {
  const ticks: string[] = [];
  const sixHours = 6 * 3_600_000;
  for (let t = Math.ceil(fromMs / sixHours) * sixHours; t <= endMs; t += sixHours) {
    const x = PAD_LEFT + ((t - fromMs) / CHART_SPAN_MS) * PLOT_W;
    const label = new Date(t).toISOString().slice(11, 16);
    ticks.push(
      `<line class="grid" x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="8" y2="${8 + PLOT_H}"/><text class="tick" x="${x.toFixed(1)}" y="${HEIGHT - 4}" text-anchor="middle">${label}</text>`,
    );
  }
  const top = unit === "$" ? `$${peak.toFixed(peak < 1 ? 2 : 0)}` : `${Math.round(peak)}${unit}`;
  return `<line class="axis" x1="${PAD_LEFT}" x2="${PAD_LEFT + PLOT_W}" y1="${8 + PLOT_H}" y2="${8 + PLOT_H}"/><text class="tick" x="${PAD_LEFT - 4}" y="16" text-anchor="end">${top}</text><text class="tick" x="${PAD_LEFT - 4}" y="${8 + PLOT_H}" text-anchor="end">0</text>${ticks.join("")}`;
}

/** A rung or series name made safe for a CSS class. */
export function cssName(name: string): string {
  return name.replace(/[^a-z0-9-]/gi, "_");
}
