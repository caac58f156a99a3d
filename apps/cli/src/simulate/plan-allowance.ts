import type { GatewayConfig } from "@planfirst/gateway";

/** What a plan allowance is counted in: API-equivalent US dollars, or tokens (input + output). */
export type AllowanceUnit = "usd" | "tokens";

/** Length of a plan window: a rolling length in milliseconds, or the calendar month (UTC). */
export type WindowLength = { kind: "rolling"; lengthMs: number } | { kind: "month" };

/** An allowance per window for one plan, from the command line or calibrated from a trace. */
export interface PlanAllowance {
  /** Connection id or provider id the allowance applies to (`claude-max`, `codex`). */
  target: string;
  /** Window id as the quota cache names it: `5h`, `7d`, `monthly`, or `<n>h` / `<n>d`. */
  windowId: string;
  length: WindowLength;
  /** Allowance per window, in `unit`. */
  amount: number;
  unit: AllowanceUnit;
  /**
   * `option`: given on the command line; `config`: the connection's `planAllowances`;
   * `calibrated`: derived from utilization readings.
   */
  origin: "option" | "config" | "calibrated";
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The windows a plan has, by provider, as the catalog of plan terms describes them: Claude and
 * Codex count a 5-hour and a 7-day window, Copilot a calendar month. Other plans get what the
 * operator names.
 */
export const PLAN_WINDOWS_BY_PROVIDER: Readonly<Record<string, readonly string[]>> = {
  claude: ["5h", "7d"],
  anthropic: ["5h", "7d"],
  codex: ["5h", "7d"],
  "github-copilot": ["monthly"],
};

const SPEC =
  /^([A-Za-z0-9][A-Za-z0-9._-]*)=(\d+(?:\.\d+)?)(usd|\$|tok|tokens|k|ktok|m|mtok)\/([1-9]\d*h|[1-9]\d*d|month|monthly)$/i;
const SPEC_HELP =
  "write TARGET=AMOUNT{usd|tok|ktok|mtok}/WINDOW, e.g. claude-max=200usd/5h or codex=40mtok/7d (WINDOW: 5h, 7d, month)";

/** Reads a window id (`5h`, `7d`, `month`) into its id and length. */
export function parseWindow(text: string): { windowId: string; length: WindowLength } {
  const lower = text.toLowerCase();
  if (lower === "month" || lower === "monthly") {
    return { windowId: "monthly", length: { kind: "month" } };
  }
  const count = Number(lower.slice(0, -1));
  const unitMs = lower.endsWith("h") ? HOUR_MS : DAY_MS;
  return { windowId: lower, length: { kind: "rolling", lengthMs: count * unitMs } };
}

/**
 * Parses one `--plan` value: comma-separated `TARGET=AMOUNT UNIT/WINDOW` items such as
 * `claude-max=200usd/5h,claude-max=1000usd/7d,codex=30mtok/5h`. Units: `usd` (or `$`), `tok`,
 * `ktok` (thousands), `mtok` (millions). Returns the allowances, or the problems found (each
 * naming the item and the accepted form).
 */
export function parsePlanAllowances(
  value: string,
): { ok: true; allowances: PlanAllowance[] } | { ok: false; problems: string[] } {
  const allowances: PlanAllowance[] = [];
  const problems: string[] = [];
  for (const item of value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = SPEC.exec(item);
    if (!match) {
      problems.push(`--plan "${item}": ${SPEC_HELP}`);
      continue;
    }
    const [, target, amountText, unitText, windowText] = match;
    const unit = unitText!.toLowerCase();
    const scale = unit === "k" || unit === "ktok" ? 1e3 : unit === "m" || unit === "mtok" ? 1e6 : 1;
    const amount = Number(amountText) * scale;
    if (!(amount > 0)) {
      problems.push(`--plan "${item}": the allowance must be above 0`);
      continue;
    }
    allowances.push({
      target: target!,
      ...parseWindow(windowText!),
      amount,
      unit: unit === "usd" || unit === "$" ? "usd" : "tokens",
      origin: "option",
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, allowances };
}

/** Epoch ms at which the window that starts at `startMs` ends. Months are UTC calendar months. */
export function windowEndMs(length: WindowLength, startMs: number): number {
  if (length.kind === "rolling") return startMs + length.lengthMs;
  const start = new Date(startMs);
  return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
}

/**
 * The allowances the config gives its connections (`connections[].planAllowances`), each for
 * its connection id, minus any (target, window) that `given` (the command line) already names:
 * `--plan` wins over the config, the config over calibration.
 */
export function configPlanAllowances(
  config: Pick<GatewayConfig, "connections">,
  given: readonly PlanAllowance[],
): PlanAllowance[] {
  const named = new Set(given.map((allowance) => `${allowance.target}\u0000${allowance.windowId}`));
  const out: PlanAllowance[] = [];
  for (const connection of config.connections) {
    for (const entry of connection.planAllowances ?? []) {
      const window = parseWindow(entry.window);
      if (named.has(`${connection.id}\u0000${window.windowId}`)) continue;
      out.push({
        target: connection.id,
        ...window,
        amount: entry.usd ?? entry.tokens ?? 0,
        unit: entry.usd !== undefined ? "usd" : "tokens",
        origin: "config",
      });
    }
  }
  return out;
}
