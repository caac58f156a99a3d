import type { QuotaWindow } from "../quota-state";
import type { HeaderMap } from "./header-input";
import { finiteNumber, makeWindow, percentFromCounts } from "./normalise";
import { parseGoDuration } from "./parse-go-duration";

/** How the requests dimension is metered: per minute (OpenAI) or per day (Groq, pitfall 11). */
export type RequestsPeriod = "minute" | "day";

interface Dimension {
  windowId: string;
  windowSeconds: number | null;
}

/** Maps an `x-ratelimit-limit-<dimension>` suffix to a window id keyed by real duration. */
function dimensionWindow(dimension: string, requestsPeriod: RequestsPeriod): Dimension {
  switch (dimension) {
    case "requests":
      return requestsPeriod === "day"
        ? { windowId: "rpd", windowSeconds: 86_400 }
        : { windowId: "rpm", windowSeconds: 60 };
    case "tokens":
      return { windowId: "tpm", windowSeconds: 60 };
    case "requests-minute":
      return { windowId: "rpm", windowSeconds: 60 };
    case "requests-day":
      return { windowId: "rpd", windowSeconds: 86_400 };
    case "tokens-minute":
      return { windowId: "tpm", windowSeconds: 60 };
    case "tokens-day":
      return { windowId: "tpd", windowSeconds: 86_400 };
    default:
      // `tokens_usage_based` and any future dimension keep their own name.
      return { windowId: dimension.replace(/[^a-z0-9_-]/g, ""), windowSeconds: null };
  }
}

/** A count header, or null for absent and Azure's `-1` placeholder (pitfall 6). */
function count(value: string | undefined): number | null {
  const n = finiteNumber(value);
  return n === null || n < 0 ? null : n;
}

/**
 * Windows from the OpenAI-style `x-ratelimit-{limit,remaining,reset}-<dimension>` family (OpenAI,
 * Groq, Cerebras, Azure, most OpenAI-compatible servers) and Mistral's `x-ratelimitbysize-*`.
 * Resets are Go durations or float seconds relative to `nowMs` ("fully replenished", pitfall 12).
 * A dimension whose limit is missing, `0` or `-1` is absent.
 */
export function rateLimitHeaderWindows(
  headers: HeaderMap,
  nowMs: number,
  observedAt: string,
  requestsPeriod: RequestsPeriod,
): QuotaWindow[] {
  const windows: QuotaWindow[] = [];
  const seen = new Set<string>();
  for (const [name, value] of headers) {
    if (!name.startsWith("x-ratelimit-limit-")) continue;
    const dimension = name.slice("x-ratelimit-limit-".length);
    const limit = count(value);
    const remaining = count(headers.get(`x-ratelimit-remaining-${dimension}`));
    if (limit === null || limit === 0 || remaining === null) continue;
    const { windowId, windowSeconds } = dimensionWindow(dimension, requestsPeriod);
    if (windowId === "" || seen.has(windowId)) continue;
    seen.add(windowId);
    const resetMs = parseGoDuration(headers.get(`x-ratelimit-reset-${dimension}`));
    windows.push(
      makeWindow({
        windowId,
        remainingPercent: percentFromCounts(remaining, limit),
        resetAtMs: resetMs === null ? null : nowMs + resetMs,
        windowSeconds,
        source: "header",
        observedAt,
      }),
    );
  }
  // Mistral: token budgets per minute and per month; `ratelimitbysize-reset` is seconds.
  const mistral: Array<[string, string, number | null]> = [
    ["minute", "tpm", 60],
    ["month", "monthly", null],
  ];
  for (const [suffix, windowId, windowSeconds] of mistral) {
    const limit = count(headers.get(`x-ratelimitbysize-limit-${suffix}`));
    const remaining = count(headers.get(`x-ratelimitbysize-remaining-${suffix}`));
    if (limit === null || limit === 0 || remaining === null || seen.has(windowId)) continue;
    seen.add(windowId);
    const resetSeconds = suffix === "minute" ? count(headers.get("ratelimitbysize-reset")) : null;
    windows.push(
      makeWindow({
        windowId,
        remainingPercent: percentFromCounts(remaining, limit),
        resetAtMs: resetSeconds === null ? null : nowMs + resetSeconds * 1000,
        windowSeconds,
        source: "header",
        observedAt,
      }),
    );
  }
  return windows;
}
