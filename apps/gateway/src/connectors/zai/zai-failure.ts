import type { UpstreamFailure } from "@planfirst/quota-cache";
import { parseRetryAfter } from "@planfirst/quota-cache";
import { bodyObject, type UpstreamAnswer } from "../connector";

/** z.ai business codes that mean a plan window is spent (1308 the 5 h window, 1310 weekly/monthly). */
const ZAI_QUOTA_CODES: ReadonlySet<string> = new Set([
  "1308",
  "1310",
  "1316",
  "1317",
  "1318",
  "1319",
  "1320",
  "1321",
]);

/** Beijing is UTC+8 all year (no daylight saving). */
const BEIJING_OFFSET_MS = 8 * 3600_000;

/**
 * The instant in a z.ai "Your limit will reset at 2026-09-09 05:38:28" message. z.ai writes that
 * time in Beijing time (UTC+8) without an offset; a time that does carry `Z` or an offset is
 * read as written. ISO string, or null when the message has no time.
 */
export function zaiResetFromMessage(message: string): string | null {
  const match = /(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?/.exec(
    message,
  );
  if (!match) return null;
  const [, y, mo, d, h, mi, s, zone] = match;
  if (zone) {
    const parsed = Date.parse(match[0].replace(" ", "T"));
    return Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
  }
  const utcMs =
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0)) -
    BEIJING_OFFSET_MS;
  return Number.isNaN(utcMs) ? null : new Date(utcMs).toISOString();
}

function zaiCode(body: unknown): { code: string | null; message: string } {
  const record = bodyObject(body);
  const error = bodyObject(record?.error);
  const raw = error?.code ?? record?.code;
  const message = error?.message ?? record?.msg ?? record?.message;
  return {
    code: typeof raw === "string" || typeof raw === "number" ? String(raw) : null,
    message: typeof message === "string" ? message : "",
  };
}

/**
 * The meaning of a z.ai error (quota-signals.md §14): 1308, 1310, 1316–1321 → `window_exhausted`
 * until the reset in the message (Beijing time); 1302 (request rate) → `rate_limited`; 1305
 * (overloaded) → `overloaded`; 1113 (no plan or balance on this key) → `misconfigured`: the key
 * is valid but has no coding plan, which no reset and no re-login cures, only the operator; 401 →
 * `auth_invalid`. Null for anything else (the generic parser decides). Pure and total.
 */
export function classifyZaiFailure(answer: UpstreamAnswer): UpstreamFailure | null {
  const { status } = answer;
  const { code, message } = zaiCode(answer.body);
  const retryAt = parseRetryAfter(answer.headers, answer.observedAtMs);
  if (code && ZAI_QUOTA_CODES.has(code)) {
    const failure: UpstreamFailure = {
      kind: "window_exhausted",
      retryAt,
      resetAt: zaiResetFromMessage(message),
      code,
    };
    if (code === "1308") failure.windowId = "5h";
    return failure;
  }
  if (code === "1302") return { kind: "rate_limited", retryAt, resetAt: null, code };
  if (code === "1305") return { kind: "overloaded", retryAt, resetAt: null, code };
  if (code === "1113") {
    return {
      kind: "misconfigured",
      retryAt: null,
      resetAt: null,
      code,
      detail: "z.ai refused the key: no coding plan or balance on it (1113)",
    };
  }
  if (status === 401)
    return { kind: "auth_invalid", retryAt: null, resetAt: null, code: code ?? "401" };
  return null;
}
