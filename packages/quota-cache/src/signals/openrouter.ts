import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { readErrorBody } from "./error-body";
import { toHeaderMap } from "./header-input";
import {
  field,
  finiteNumber,
  isoFromMs,
  isRecord,
  makeWindow,
  percentFromCounts,
  text,
} from "./normalise";
import { parseEpoch } from "./parse-epoch";
import { finishSignals, makeFailure, type ResponseInput, toContext } from "./response-input";

/** Scope of the account-wide `:free` model counters; matches every `…:free` model id. */
export const OPENROUTER_FREE_SCOPE = ":free";

/**
 * Signals from an OpenRouter response (quota-signals.md §8). The 429 body echoes the limit
 * headers in `error.metadata.headers` (`X-RateLimit-Limit`, `-Remaining`, `-Reset` in epoch ms);
 * live `x-ratelimit-*` headers are read the same way.
 * - `free-models-per-day` → window `free_daily` (scope `:free`) exhausted, window_exhausted until
 *   `X-RateLimit-Reset`; `free-models-per-min` → rate_limited on the `:free` scope.
 * - `limit_source` naming the upstream provider or a shared pool → overloaded for the request's
 *   model (provider capacity, not the key's quota); `limit_rpm/<model>` (shared capacity) →
 *   rate_limited for that model.
 * - 402 (negative balance, "requires more credits") → credits_exhausted; 401/403 → auth_invalid;
 *   502/503 → overloaded; other 429s → rate_limited.
 */
export function parseOpenRouterResponse(input: ResponseInput): ResponseSignals {
  const context = toContext(input);
  const { message, error } = readErrorBody(context.body);
  const metadata = field(error, "metadata");
  const echoed = toHeaderMap(
    isRecord(field(metadata, "headers"))
      ? (field(metadata, "headers") as Record<string, string>)
      : undefined,
  );
  const header = (name: string) => echoed.get(name) ?? context.headers.get(name);
  const limit = finiteNumber(header("x-ratelimit-limit"));
  const remaining = finiteNumber(header("x-ratelimit-remaining"));
  const resetMs = parseEpoch(header("x-ratelimit-reset"));
  const limitSource = text(field(metadata, "limit_source"))?.toLowerCase() ?? "";
  const lowerMessage = message?.toLowerCase() ?? "";
  const freeDaily =
    /free-models-per-day/.test(lowerMessage) || limitSource.includes("free_tier_daily");
  const freeMinute = /free-models-per-min/.test(lowerMessage);
  const upstream = limitSource.includes("upstream") || limitSource.includes("shared_pool");
  const perModel = /limit_rpm\//.test(lowerMessage) || limitSource.includes("shared_capacity");
  const status = context.status;

  const windows: QuotaWindow[] = [];
  const haveCounts = limit !== null && limit > 0 && remaining !== null && remaining >= 0;
  if (!upstream && (haveCounts || resetMs !== null)) {
    const windowId = freeDaily
      ? "free_daily"
      : freeMinute
        ? "free_rpm"
        : perModel
          ? "rpm"
          : "ratelimit";
    const scopeModel =
      freeDaily || freeMinute ? OPENROUTER_FREE_SCOPE : perModel ? context.model : undefined;
    if (!(perModel && !scopeModel)) {
      windows.push(
        makeWindow({
          windowId: perModel && scopeModel ? `rpm:${scopeModel.toLowerCase()}` : windowId,
          scope: scopeModel ? { model: scopeModel.toLowerCase() } : undefined,
          remainingPercent: haveCounts ? percentFromCounts(remaining, limit) : null,
          resetAtMs: resetMs,
          windowSeconds: freeDaily ? 86_400 : freeMinute || perModel ? 60 : null,
          rejected: status === 429,
          source: echoed.size > 0 ? "body" : "header",
          observedAt: context.observedAt,
        }),
      );
    }
  }

  let failure: UpstreamFailure | undefined;
  const resetAt = isoFromMs(resetMs);
  if (status === 402) {
    failure = makeFailure("credits_exhausted", { code: "402" });
  } else if (status === 401 || status === 403) {
    failure = makeFailure("auth_invalid", { code: String(status) });
  } else if (status === 429 && upstream) {
    failure = makeFailure("overloaded", {
      retryAt: context.retryAt,
      model: context.model,
      code: limitSource,
    });
  } else if (status === 429 && freeDaily) {
    failure = makeFailure("window_exhausted", {
      resetAt,
      retryAt: context.retryAt ?? resetAt,
      windowId: "free_daily",
      model: OPENROUTER_FREE_SCOPE,
      code: "free-models-per-day",
    });
  } else if (status === 429) {
    failure = makeFailure("rate_limited", {
      resetAt,
      retryAt: context.retryAt ?? resetAt,
      windowId: windows[0]?.windowId,
      model: freeMinute ? OPENROUTER_FREE_SCOPE : perModel ? context.model : undefined,
      code: limitSource || undefined,
    });
  } else if (status === 502 || status === 503) {
    failure = makeFailure("overloaded", { model: context.model, code: String(status) });
  }
  return finishSignals(context, windows, failure);
}
