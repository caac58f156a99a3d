/** Status values of the Claude unified rate-limit headers. */
export type ClaudeUnifiedStatus = "allowed" | "allowed_warning" | "rejected";

/** One Claude plan window: utilization is a FRACTION used (0..1, may exceed 1), reset in epoch seconds. */
export interface ClaudeWindow {
  utilization: number;
  resetAtSec: number;
  /** Per-window status; default `rejected` at utilization ≥ 1, else `allowed`. */
  status?: ClaudeUnifiedStatus;
  /** Adds `-surpassed-threshold` (a fraction such as 0.9). */
  surpassedThreshold?: number;
}

/** Options of {@link claudeUnifiedHeaders}. */
export interface ClaudeUnifiedOptions {
  fiveHour: ClaudeWindow;
  sevenDay?: ClaudeWindow;
  /** Overall status; default `rejected` when the representative window is rejected, else `allowed`. */
  status?: ClaudeUnifiedStatus;
  /** Binding window; default the first rejected window, else `five_hour`. */
  representativeClaim?:
    | "five_hour"
    | "seven_day"
    | "seven_day_opus"
    | "seven_day_sonnet"
    | "overage";
  /** Default `rejected` (a plan without paid extra usage). `null` omits the overage headers. */
  overageStatus?: ClaudeUnifiedStatus | null;
  /** Default `overage_not_provisioned` while overage is rejected. */
  overageDisabledReason?: string | null;
  /** Adds `anthropic-ratelimit-unified-fallback-percentage`. */
  fallbackPercentage?: number;
}

function windowStatus(window: ClaudeWindow): ClaudeUnifiedStatus {
  return window.status ?? (window.utilization >= 1 ? "rejected" : "allowed");
}

/**
 * The `anthropic-ratelimit-unified-*` headers a Claude Pro/Max (OAuth) response carries
 * (quota-signals.md §2a): utilization as a fraction, resets in epoch seconds.
 */
export function claudeUnifiedHeaders(options: ClaudeUnifiedOptions): Record<string, string> {
  const prefix = "anthropic-ratelimit-unified-";
  const headers: Record<string, string> = {};
  const windows: [string, "five_hour" | "seven_day", ClaudeWindow | undefined][] = [
    ["5h", "five_hour", options.fiveHour],
    ["7d", "seven_day", options.sevenDay],
  ];
  for (const [key, , window] of windows) {
    if (!window) continue;
    headers[`${prefix}${key}-utilization`] = String(window.utilization);
    headers[`${prefix}${key}-reset`] = String(window.resetAtSec);
    headers[`${prefix}${key}-status`] = windowStatus(window);
    if (window.surpassedThreshold !== undefined) {
      headers[`${prefix}${key}-surpassed-threshold`] = String(window.surpassedThreshold);
    }
  }
  const rejected = windows.find(([, , w]) => w && windowStatus(w) === "rejected");
  const claim = options.representativeClaim ?? rejected?.[1] ?? "five_hour";
  const claimWindow =
    claim === "seven_day" && options.sevenDay ? options.sevenDay : options.fiveHour;
  headers[`${prefix}status`] = options.status ?? windowStatus(claimWindow);
  headers[`${prefix}reset`] = String(claimWindow.resetAtSec);
  headers[`${prefix}representative-claim`] = claim;
  if (options.fallbackPercentage !== undefined) {
    headers[`${prefix}fallback-percentage`] = String(options.fallbackPercentage);
  }
  if (options.overageStatus !== null) {
    const overageStatus = options.overageStatus ?? "rejected";
    headers[`${prefix}overage-status`] = overageStatus;
    const reason =
      options.overageDisabledReason === undefined && overageStatus === "rejected"
        ? "overage_not_provisioned"
        : options.overageDisabledReason;
    if (reason) headers[`${prefix}overage-disabled-reason`] = reason;
  }
  return headers;
}

/** One Anthropic API bucket: counts and an absolute reset instant (ISO-8601 / RFC 3339). */
export interface AnthropicBucket {
  limit: number;
  remaining: number;
  resetAt: string;
}

/**
 * The `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
 * headers of a metered API key (quota-signals.md §1). Buckets left out are omitted;
 * `retryAfterSec` adds `retry-after`.
 */
export function anthropicApiHeaders(options: {
  requests?: AnthropicBucket;
  tokens?: AnthropicBucket;
  inputTokens?: AnthropicBucket;
  outputTokens?: AnthropicBucket;
  retryAfterSec?: number;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  const buckets: [string, AnthropicBucket | undefined][] = [
    ["requests", options.requests],
    ["tokens", options.tokens],
    ["input-tokens", options.inputTokens],
    ["output-tokens", options.outputTokens],
  ];
  for (const [name, bucket] of buckets) {
    if (!bucket) continue;
    headers[`anthropic-ratelimit-${name}-limit`] = String(bucket.limit);
    headers[`anthropic-ratelimit-${name}-remaining`] = String(bucket.remaining);
    headers[`anthropic-ratelimit-${name}-reset`] = bucket.resetAt;
  }
  if (options.retryAfterSec !== undefined) headers["retry-after"] = String(options.retryAfterSec);
  return headers;
}

/**
 * A Go-style duration as OpenAI sends in `x-ratelimit-reset-*`: `12ms`, `1.5s`, `6m0s`, `1h2m3s`.
 * Input in milliseconds.
 */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = Number(((ms % 60_000) / 1000).toFixed(3));
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** One OpenAI bucket: counts and the time until it is full again, milliseconds. */
export interface OpenAiBucket {
  limit: number;
  remaining: number;
  resetMs: number;
}

/**
 * The `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` headers of an OpenAI-compatible
 * API (quota-signals.md §3), resets as Go durations. `retryAfterSec` / `retryAfterMs` add
 * `retry-after` / `retry-after-ms`.
 */
export function openAiRateLimitHeaders(options: {
  requests?: OpenAiBucket;
  tokens?: OpenAiBucket;
  retryAfterSec?: number;
  retryAfterMs?: number;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  const buckets: [string, OpenAiBucket | undefined][] = [
    ["requests", options.requests],
    ["tokens", options.tokens],
  ];
  for (const [name, bucket] of buckets) {
    if (!bucket) continue;
    headers[`x-ratelimit-limit-${name}`] = String(bucket.limit);
    headers[`x-ratelimit-remaining-${name}`] = String(bucket.remaining);
    headers[`x-ratelimit-reset-${name}`] = goDuration(bucket.resetMs);
  }
  if (options.retryAfterSec !== undefined) headers["retry-after"] = String(options.retryAfterSec);
  if (options.retryAfterMs !== undefined) headers["retry-after-ms"] = String(options.retryAfterMs);
  return headers;
}

/** One Codex window: percent USED (0..100), length in minutes, reset in epoch seconds. */
export interface CodexWindow {
  usedPercent: number;
  windowMinutes: number;
  resetAtSec: number;
}

/**
 * The `x-codex-*` headers of a ChatGPT-plan (Codex OAuth) response (quota-signals.md §4a).
 * `secondary: null` (the default) sends the real "no such window" form: zeros and an empty
 * `reset-at`. `nowSec` (default the current time) anchors `reset-after-seconds`.
 */
export function codexHeaders(options: {
  primary: CodexWindow;
  secondary?: CodexWindow | null;
  planType?: string;
  activeLimit?: string;
  credits?: { hasCredits: boolean; unlimited: boolean; balance: string };
  nowSec?: number;
}): Record<string, string> {
  const nowSec = options.nowSec ?? Math.floor(Date.now() / 1000);
  const credits = options.credits ?? { hasCredits: false, unlimited: false, balance: "0" };
  const headers: Record<string, string> = {
    "x-codex-active-limit": options.activeLimit ?? "codex",
    "x-codex-plan-type": options.planType ?? "pro",
    "x-codex-credits-has-credits": credits.hasCredits ? "True" : "False",
    "x-codex-credits-unlimited": credits.unlimited ? "True" : "False",
    "x-codex-credits-balance": credits.balance,
    "x-codex-primary-over-secondary-limit-percent": "0",
  };
  const slots: [string, CodexWindow | null][] = [
    ["primary", options.primary],
    ["secondary", options.secondary ?? null],
  ];
  for (const [slot, window] of slots) {
    headers[`x-codex-${slot}-used-percent`] = window ? String(window.usedPercent) : "0";
    headers[`x-codex-${slot}-window-minutes`] = window ? String(window.windowMinutes) : "0";
    headers[`x-codex-${slot}-reset-at`] = window ? String(window.resetAtSec) : "";
    headers[`x-codex-${slot}-reset-after-seconds`] = window
      ? String(Math.max(0, window.resetAtSec - nowSec))
      : "0";
  }
  return headers;
}
