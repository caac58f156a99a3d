import type { LadderRung } from "@planfirst/subscription-ladder";
import { RUNG_ORDER } from "@planfirst/subscription-ladder";
import type { IdReplay } from "./replay";

/** Fill colour per rung, cheapest first (colour-blind-safe palette). */
export const RUNG_COLORS: Readonly<Record<LadderRung, string>> = {
  subscription: "#0072b2",
  keyless: "#009e73",
  free: "#56b4e9",
  cheap: "#e69f00",
  premium: "#d55e00",
};

const REFUSED_COLOR = "#999999";
const LINE_COLORS = ["#000000", "#cc79a7", "#6a3d9a", "#b15928"];

const WIDTH = 960;
const HEIGHT = 480;
const MARGIN = { top: 48, right: 64, bottom: 96, left: 64 };

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

const fixed = (n: number) => Number(n.toFixed(1)).toString();

/** Top of the count axis: four equal whole-number steps of 1, 2 or 5 × 10ⁿ covering `value`. */
function niceMax(value: number): number {
  const quarter = Math.max(1, value / 4);
  const magnitude = 10 ** Math.floor(Math.log10(quarter));
  for (const step of [1, 2, 5, 10]) if (quarter <= step * magnitude) return 4 * step * magnitude;
  return 40 * magnitude;
}

function dateLabel(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  return spanMs > 3 * 86_400_000 ? iso.slice(5, 10) : iso.slice(5, 16).replace("T", " ");
}

/**
 * A standalone SVG (for a blog post or a README) of one replay: stacked bars of requests per
 * rung per time bucket (refusals in grey), each plan window's remaining percent as a line on
 * the right-hand axis, and every reset as a dashed vertical marker. Carries a `<title>`, both
 * axes with labels and a legend. Elements are classed (`bar rung-<name>`, `remaining`, `reset`)
 * so the chart can be checked by parsing it.
 */
export function renderSvgChart(replay: IdReplay, title: string): string {
  const { series } = replay;
  const buckets = series.buckets.length;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const spanMs = Math.max(1, buckets * series.bucketMs);
  const x = (ms: number) => MARGIN.left + ((ms - series.startMs) / spanMs) * plotWidth;
  const totals = series.buckets.map(
    (bucket) => RUNG_ORDER.reduce((sum, rung) => sum + bucket.byRung[rung], 0) + bucket.refused,
  );
  const yMax = niceMax(Math.max(0, ...totals));
  const yCount = (n: number) => MARGIN.top + plotHeight - (n / yMax) * plotHeight;
  const yPercent = (p: number) => MARGIN.top + plotHeight - (p / 100) * plotHeight;
  const barWidth = Math.max(0.5, plotWidth / Math.max(1, buckets) - 1);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title" font-family="system-ui, sans-serif" font-size="12">`,
    `<title id="chart-title">${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text class="chart-title" x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="16" font-weight="600">${escapeXml(title)}</text>`,
  );

  // Axes: time along the bottom, requests per bucket on the left, remaining % on the right.
  out.push('<g class="axes" stroke="#333333" fill="none">');
  out.push(
    `<line class="axis x-axis" x1="${MARGIN.left}" y1="${MARGIN.top + plotHeight}" x2="${MARGIN.left + plotWidth}" y2="${MARGIN.top + plotHeight}"/>`,
    `<line class="axis y-axis" x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + plotHeight}"/>`,
    `<line class="axis y2-axis" x1="${MARGIN.left + plotWidth}" y1="${MARGIN.top}" x2="${MARGIN.left + plotWidth}" y2="${MARGIN.top + plotHeight}"/>`,
  );
  out.push("</g>");
  out.push('<g class="ticks" fill="#333333">');
  for (let i = 0; i <= 4; i++) {
    const value = (yMax * i) / 4;
    out.push(
      `<text x="${MARGIN.left - 6}" y="${fixed(yCount(value) + 4)}" text-anchor="end">${fixed(value)}</text>`,
      `<text x="${MARGIN.left + plotWidth + 6}" y="${fixed(yPercent(25 * i) + 4)}">${25 * i}%</text>`,
    );
  }
  for (let i = 0; i <= 6; i++) {
    const ms = series.startMs + (spanMs * i) / 6;
    out.push(
      `<text x="${fixed(x(ms))}" y="${MARGIN.top + plotHeight + 16}" text-anchor="middle">${dateLabel(ms, spanMs)}</text>`,
    );
  }
  out.push(
    `<text class="axis-label" x="${MARGIN.left + plotWidth / 2}" y="${MARGIN.top + plotHeight + 36}" text-anchor="middle">time (UTC), ${fixed(series.bucketMs / 3_600_000)} h per bar</text>`,
    `<text class="axis-label" transform="translate(18 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">requests per bar</text>`,
    `<text class="axis-label" transform="translate(${WIDTH - 14} ${MARGIN.top + plotHeight / 2}) rotate(90)" text-anchor="middle">plan window remaining</text>`,
  );
  out.push("</g>");

  // Bars, stacked cheapest rung first, refusals on top.
  out.push('<g class="bars">');
  series.buckets.forEach((bucket, index) => {
    let base = 0;
    const left = fixed(x(series.startMs + index * series.bucketMs) + 0.5);
    const layers: [string, number, string][] = [
      ...RUNG_ORDER.map((rung): [string, number, string] => [
        `rung-${rung}`,
        bucket.byRung[rung],
        RUNG_COLORS[rung],
      ]),
      ["refused", bucket.refused, REFUSED_COLOR],
    ];
    for (const [name, value, fill] of layers) {
      if (value === 0) continue;
      const top = yCount(base + value);
      out.push(
        `<rect class="bar ${name}" x="${left}" y="${fixed(top)}" width="${fixed(barWidth)}" height="${fixed(yCount(base) - top)}" fill="${fill}"/>`,
      );
      base += value;
    }
  });
  out.push("</g>");

  // Remaining % per plan window, and its resets.
  out.push('<g class="windows" fill="none">');
  replay.windows.forEach((window, w) => {
    const label = `${window.connectionId} ${window.allowance.windowId}`;
    const colour = LINE_COLORS[w % LINE_COLORS.length]!;
    const points = (series.remaining[w] ?? [])
      .map(
        (percent, index) =>
          `${fixed(x(series.startMs + (index + 1) * series.bucketMs))},${fixed(yPercent(percent))}`,
      )
      .join(" ");
    out.push(
      `<polyline class="remaining" data-window="${escapeXml(label)}" points="${MARGIN.left},${fixed(yPercent(100))} ${points}" stroke="${colour}" stroke-width="2"/>`,
    );
    for (const resetMs of window.resets) {
      out.push(
        `<line class="reset" data-window="${escapeXml(label)}" x1="${fixed(x(resetMs))}" y1="${MARGIN.top}" x2="${fixed(x(resetMs))}" y2="${MARGIN.top + plotHeight}" stroke="${colour}" stroke-dasharray="4 3" stroke-width="1"/>`,
      );
    }
  });
  out.push("</g>");

  // Legend: rungs that served something, refusals, then the window lines and the reset marker.
  const entries: { label: string; swatch: string }[] = [];
  for (const rung of RUNG_ORDER) {
    if (replay.servedByRung[rung] > 0) {
      entries.push({
        label: rung,
        swatch: `<rect width="12" height="12" fill="${RUNG_COLORS[rung]}"/>`,
      });
    }
  }
  if (replay.refused > 0) {
    entries.push({
      label: "refused",
      swatch: `<rect width="12" height="12" fill="${REFUSED_COLOR}"/>`,
    });
  }
  replay.windows.forEach((window, w) => {
    const colour = LINE_COLORS[w % LINE_COLORS.length]!;
    entries.push({
      label: `${window.connectionId} ${window.allowance.windowId} remaining`,
      swatch: `<line x1="0" y1="6" x2="14" y2="6" stroke="${colour}" stroke-width="2"/>`,
    });
  });
  if (replay.windows.some((window) => window.resets.length > 0)) {
    entries.push({
      label: "reset",
      swatch: '<line x1="6" y1="0" x2="6" y2="12" stroke="#333333" stroke-dasharray="4 3"/>',
    });
  }
  out.push(`<g class="legend" transform="translate(${MARGIN.left} ${HEIGHT - 36})">`);
  let offset = 0;
  for (const entry of entries) {
    out.push(
      `<g class="legend-item" transform="translate(${offset} 0)">${entry.swatch}<text x="18" y="10">${escapeXml(entry.label)}</text></g>`,
    );
    offset += 30 + entry.label.length * 7;
  }
  out.push("</g>", "</svg>");
  return `${out.join("\n")}\n`;
}
