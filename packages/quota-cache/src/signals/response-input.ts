import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { type HeaderInput, type HeaderMap, toHeaderMap } from "./header-input";
import { isoFromMs, safeNowMs } from "./normalise";
import { ietfWindowsFromMap } from "./parse-ietf-rate-limit";
import { retryAfterFromMap } from "./parse-retry-after";

/** One upstream response as the family parsers read it. */
export interface ResponseInput {
  /** HTTP status code. */
  status: number;
  headers: HeaderInput;
  /** Parsed JSON error body, or its raw text; anything else is ignored. */
  body?: unknown;
  /** Epoch ms at which the response arrived; relative resets become absolute at this instant. */
  observedAtMs: number;
  /** Model the request asked for; scopes headerless or per-model failures to it. */
  model?: string;
}

/** A family parser: pure, total, never throws. */
export type ResponseSignalParser = (input: ResponseInput) => ResponseSignals;

/** Everything a family parser needs, normalised once. */
export interface ResponseContext {
  status: number;
  headers: HeaderMap;
  body: unknown;
  nowMs: number;
  observedAt: string;
  model: string | undefined;
  /** `Retry-After` family, resolved at the observation instant. */
  retryAt: string | null;
}

/** Parses a JSON text body, leaving anything else as it is. */
function decodeBody(body: unknown): unknown {
  if (typeof body !== "string") return body;
  const trimmed = body.trim();
  if (trimmed === "" || trimmed.length > 1_000_000) return trimmed || undefined;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}

/** Normalises a response input; tolerates any shape without throwing. */
export function toContext(input: ResponseInput | null | undefined): ResponseContext {
  const nowMs = safeNowMs(typeof input?.observedAtMs === "number" ? input.observedAtMs : 0);
  const headers = toHeaderMap(input?.headers);
  const status =
    typeof input?.status === "number" && Number.isFinite(input.status) ? input.status : 0;
  const model =
    typeof input?.model === "string" && input.model.trim() ? input.model.trim() : undefined;
  return {
    status,
    headers,
    body: decodeBody(input?.body),
    nowMs,
    observedAt: isoFromMs(nowMs)!,
    model,
    retryAt: retryAfterFromMap(headers, nowMs),
  };
}

/**
 * Completes a family's result: when the family read no windows, the IETF `RateLimit` fields are
 * the fallback; a failure without a retry instant takes the `Retry-After` one.
 */
export function finishSignals(
  context: ResponseContext,
  windows: QuotaWindow[],
  failure?: UpstreamFailure,
): ResponseSignals {
  const all = windows.length > 0 ? windows : ietfWindowsFromMap(context.headers, context.nowMs);
  const signals: ResponseSignals = { windows: all };
  if (failure) {
    if (failure.retryAt === null) failure.retryAt = context.retryAt;
    signals.failure = failure;
  }
  return signals;
}

/** Builds a failure with the optional members left out when empty. */
export function makeFailure(
  kind: UpstreamFailure["kind"],
  fields: {
    retryAt?: string | null;
    resetAt?: string | null;
    model?: string | undefined;
    windowId?: string | undefined;
    code?: string | undefined;
    detail?: string | undefined;
  } = {},
): UpstreamFailure {
  const failure: UpstreamFailure = {
    kind,
    retryAt: fields.retryAt ?? null,
    resetAt: fields.resetAt ?? null,
  };
  if (fields.model) failure.scope = { model: fields.model };
  if (fields.windowId) failure.windowId = fields.windowId;
  if (fields.code) failure.code = fields.code;
  if (fields.detail) failure.detail = fields.detail;
  return failure;
}
