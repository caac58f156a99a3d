import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { type CodexWindowReading, codexWindow, isAbsentCodexWindow } from "./codex-window";
import { readErrorBody } from "./error-body";
import { field, finiteNumber, isoAfter, isoFromMs, text } from "./normalise";
import { codexHeaderEvidence } from "./overage-signals";
import { parseEpoch } from "./parse-epoch";
import { parseProseRetryHint } from "./parse-prose-retry-hint";
import {
  finishSignals,
  makeFailure,
  type ResponseContext,
  type ResponseInput,
  toContext,
} from "./response-input";

const WINDOW_HEADER =
  /^x-codex-(?:(.+)-)?(primary|secondary)-(used-percent|window-minutes|reset-at|reset-after-seconds)$/;

/** Header limit group (`bengalfox`) → limit id (`codex_bengalfox`), pitfall 18. */
function limitIdFromGroup(group: string): string {
  const id = group.toLowerCase().replace(/-/g, "_");
  return id.startsWith("codex_") ? id : `codex_${id}`;
}

function readHeaderWindows(context: ResponseContext): CodexWindowReading[] {
  const readings: CodexWindowReading[] = [];
  const seen = new Set<string>();
  for (const name of context.headers.keys()) {
    const match = WINDOW_HEADER.exec(name);
    if (!match) continue;
    const group = match[1];
    const slot = match[2]!;
    const key = `${group ?? ""}|${slot}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const prefix = group ? `x-codex-${group}-${slot}` : `x-codex-${slot}`;
    const get = (suffix: string) => context.headers.get(`${prefix}-${suffix}`);
    const minutes = finiteNumber(get("window-minutes"));
    const after = finiteNumber(get("reset-after-seconds"));
    const resetMs =
      parseEpoch(get("reset-at")) ??
      (after !== null && after > 0 ? context.nowMs + after * 1000 : null);
    const used = finiteNumber(get("used-percent"));
    const limitName = group ? text(context.headers.get(`x-codex-${group}-limit-name`)) : undefined;
    readings.push({
      slot,
      usedPercent: used,
      minutes: minutes !== null && minutes > 0 ? Math.round(minutes) : null,
      resetMs,
      limitId: group ? limitIdFromGroup(group) : undefined,
      model: limitName?.toLowerCase(),
      source: "header",
      observedAt: context.observedAt,
    });
  }
  return readings.filter((reading) => !isAbsentCodexWindow(reading));
}

/**
 * Signals from a ChatGPT-plan Codex response (quota-signals.md §4a, §4d).
 *
 * Windows come from `x-codex-{primary,secondary}-*` and named limits `x-codex-<limit>-*`, and are
 * classified by `window-minutes`, never by slot (300 → `5h`, 10080 → `7d`, else `<m>m`); named
 * limits get `:<limitId>` and a model scope (their `limit-name`). Used percent → remaining; reset
 * from `reset-at` (epoch s), else `reset-after-seconds`. Empty strings and all-zero windows are
 * absent.
 *
 * Failures: 429 `usage_limit_reached` → window_exhausted, reset at body `resets_at` (epoch s),
 * else `resets_in_seconds`, else the exhausted window's header reset; `usage_not_included` (the
 * plan does not include Codex) → misconfigured; "at capacity" → overloaded; other 429s → rate_limited; 401/403 → auth_invalid.
 * Overage evidence from `x-codex-credits-has-credits` / `-unlimited` (true → on, both false → off).
 */
export function parseCodexResponse(input: ResponseInput): ResponseSignals {
  const context = toContext(input);
  const readings = readHeaderWindows(context);
  const { type, code, message, error } = readErrorBody(context.body);
  const kind = type ?? code;
  const limitReached = kind === "usage_limit_reached";
  const activeLimit = text(context.headers.get("x-codex-active-limit"))?.toLowerCase();
  const windows: QuotaWindow[] = readings.map(codexWindow);

  let failure: UpstreamFailure | undefined;
  const status = context.status;
  if (limitReached) {
    const activeWindows = windows.filter((w) => {
      const id = w.windowId.split(":")[1];
      return activeLimit === undefined || activeLimit === "codex"
        ? id === undefined
        : id === activeLimit;
    });
    const spent = activeWindows.find((w) => w.status === "exhausted");
    const resetsAt = parseEpoch(field(error, "resets_at"));
    const resetsIn = finiteNumber(field(error, "resets_in_seconds"));
    const resetAt =
      isoFromMs(resetsAt) ??
      (resetsIn !== null ? isoAfter(context.nowMs, resetsIn * 1000) : null) ??
      spent?.resetAt ??
      null;
    failure = makeFailure("window_exhausted", {
      resetAt,
      retryAt: context.retryAt ?? resetAt,
      windowId: spent?.windowId,
      model: spent?.scope?.model,
      code: "usage_limit_reached",
    });
  } else if (kind === "usage_not_included") {
    failure = makeFailure("misconfigured", {
      code: kind,
      detail: "the ChatGPT plan of this login does not include Codex",
    });
  } else if (status === 401 || status === 403) {
    failure = makeFailure("auth_invalid", { code: kind });
  } else if (
    status === 503 ||
    status === 529 ||
    ((status === 429 || status >= 500) && /at capacity/i.test(message ?? ""))
  ) {
    failure = makeFailure("overloaded", { code: kind, model: context.model });
  } else if (status === 429) {
    failure = makeFailure("rate_limited", {
      retryAt: context.retryAt ?? isoAfter(context.nowMs, parseProseRetryHint(message)),
      code: kind,
    });
  }
  const signals = finishSignals(context, windows, failure);
  const evidence = codexHeaderEvidence(context.headers, context.observedAt);
  if (evidence) signals.evidence = evidence;
  return signals;
}
