import type { QuotaWindow } from "../quota-state";
import {
  field,
  finiteNumber,
  isoFromMs,
  isRecord,
  makeWindow,
  parseIsoInstant,
  safeNowMs,
  scopedWindowId,
  text,
} from "./normalise";

function bucketWindow(
  base: string,
  model: string | undefined,
  quota: unknown,
  observedAt: string,
): QuotaWindow | undefined {
  const fraction = finiteNumber(field(quota, "remainingFraction"));
  const resetAtMs = parseIsoInstant(field(quota, "resetTime"));
  // A missing fraction is "unknown", never "exhausted" (Antigravity sentinel).
  if (fraction === null && resetAtMs === null) return undefined;
  const lowerModel = model?.toLowerCase();
  return makeWindow({
    windowId: scopedWindowId(base, lowerModel),
    scope: lowerModel ? { model: lowerModel } : undefined,
    remainingPercent: fraction === null ? null : 100 * fraction,
    resetAtMs,
    rawUsedPercent: fraction === null ? null : 100 * (1 - fraction),
    source: "endpoint",
    observedAt,
  });
}

/**
 * Per-model windows from Gemini Code Assist `POST …/v1internal:retrieveUserQuota`
 * (quota-signals.md §6b): each `buckets[]` entry → window `<tokenType>:<modelId>` (`requests:…`,
 * `tokens:…`) scoped to the model; remaining = 100·`remainingFraction` (fraction remaining, 0..1);
 * reset = `resetTime` (RFC 3339). Also reads Antigravity `fetchAvailableModels`
 * (`models.<id>.quotaInfo`, quota-signals.md §6c) as windows `quota:<modelId>`. A missing fraction
 * gives a null percent ("unknown"), never 0.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseCodeAssistQuota(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const observedAt = isoFromMs(safeNowMs(observedAtMs))!;
  if (!isRecord(payload)) return [];
  const windows: QuotaWindow[] = [];
  const seen = new Set<string>();
  const add = (window: QuotaWindow | undefined) => {
    if (window && !seen.has(window.windowId)) {
      seen.add(window.windowId);
      windows.push(window);
    }
  };
  if (Array.isArray(payload.buckets)) {
    for (const bucket of payload.buckets) {
      const tokenType = text(field(bucket, "tokenType"))?.toLowerCase() ?? "quota";
      add(bucketWindow(tokenType, text(field(bucket, "modelId")), bucket, observedAt));
    }
  }
  if (isRecord(payload.models)) {
    for (const [modelId, model] of Object.entries(payload.models)) {
      add(bucketWindow("quota", text(modelId), field(model, "quotaInfo"), observedAt));
    }
  }
  return windows;
}
