import type { QuotaWindow } from "../quota-state";
import { type HeaderInput, type HeaderMap, toHeaderMap } from "./header-input";
import { finiteNumber, isoFromMs, makeWindow, percentFromCounts, safeNowMs } from "./normalise";
import { parseEpoch } from "./parse-epoch";

interface ListItem {
  name: string;
  params: Map<string, string>;
}

/** Splits a Structured-Field list on commas and semicolons that are outside quoted strings. */
function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === "\\" && quoted) {
      current += ch + (value[i + 1] ?? "");
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/\\(.)/g, "$1");
  }
  return trimmed;
}

/** Minimal RFC 8941 list reader: each item is a name (string or token) with `;key=value` params. */
function parseList(value: string | undefined): ListItem[] {
  if (value === undefined) return [];
  const items: ListItem[] = [];
  for (const member of splitOutsideQuotes(value, ",")) {
    const [head, ...rest] = splitOutsideQuotes(member, ";");
    const name = unquote(head ?? "");
    if (name === "") continue;
    const params = new Map<string, string>();
    for (const param of rest) {
      const eq = param.indexOf("=");
      const key = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase();
      if (key !== "") params.set(key, eq < 0 ? "?1" : unquote(param.slice(eq + 1)));
    }
    items.push({ name, params });
  }
  return items;
}

function nonNegative(value: string | undefined): number | null {
  const n = finiteNumber(value);
  return n === null || n < 0 ? null : n;
}

/** Ten years in seconds: a legacy `RateLimit-Reset` above this is an epoch, not a delta. */
const DELTA_CEILING_S = 315_360_000;

/** {@link parseIetfRateLimit} over an already normalised header map. */
export function ietfWindowsFromMap(
  headers: HeaderMap,
  observedAtMs: number,
  source = "header",
): QuotaWindow[] {
  const nowMs = safeNowMs(observedAtMs);
  const observedAt = isoFromMs(nowMs)!;
  const windows: QuotaWindow[] = [];
  const policies = new Map(parseList(headers.get("ratelimit-policy")).map((p) => [p.name, p]));
  for (const item of parseList(headers.get("ratelimit"))) {
    const remaining = nonNegative(item.params.get("r"));
    if (remaining === null) continue;
    const policy = policies.get(item.name);
    const quota = nonNegative(policy?.params.get("q"));
    const windowSeconds = nonNegative(policy?.params.get("w"));
    const resetSeconds = nonNegative(item.params.get("t"));
    windows.push(
      makeWindow({
        windowId: item.name,
        remainingPercent: remaining === 0 ? 0 : percentFromCounts(remaining, quota),
        resetAtMs: resetSeconds === null ? null : nowMs + resetSeconds * 1000,
        windowSeconds,
        source,
        observedAt,
      }),
    );
  }
  if (windows.length > 0) return windows;

  // Drafts up to -06 (and many servers today) send three separate fields.
  const limitText = headers.get("ratelimit-limit");
  const limit = nonNegative(limitText?.split(/[,;]/)[0]);
  const remaining = nonNegative(headers.get("ratelimit-remaining"));
  if (remaining === null || (limit === null && remaining !== 0) || limit === 0) return windows;
  const windowMatch = /;\s*w=(\d+)/.exec(limitText ?? "");
  const reset = nonNegative(headers.get("ratelimit-reset"));
  let resetAtMs: number | null = null;
  if (reset !== null) {
    resetAtMs = reset > DELTA_CEILING_S ? parseEpoch(reset) : nowMs + reset * 1000;
  }
  windows.push(
    makeWindow({
      windowId: "ratelimit",
      remainingPercent: remaining === 0 ? 0 : percentFromCounts(remaining, limit),
      resetAtMs,
      windowSeconds: windowMatch ? Number(windowMatch[1]) : null,
      source,
      observedAt,
    }),
  );
  return windows;
}

/**
 * Reads the IETF `RateLimit` / `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers,
 * Structured-Field lists joined on the policy name) and, when those are absent, the older
 * `RateLimit-Limit` / `-Remaining` / `-Reset` trio. One window per policy, `windowId` = policy
 * name (`ratelimit` for the trio): remaining = 100·r/q, reset = observedAt + t seconds,
 * `windowSeconds` = w. The fallback every family uses when it found no windows of its own.
 *
 * @param observedAtMs epoch ms at which the response arrived
 */
export function parseIetfRateLimit(
  headers: HeaderInput | null | undefined,
  observedAtMs: number,
): QuotaWindow[] {
  return ietfWindowsFromMap(toHeaderMap(headers), observedAtMs);
}
