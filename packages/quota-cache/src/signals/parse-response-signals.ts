import type { OverageObservation } from "../overage-evidence";
import type { QuotaWindow } from "../quota-state";
import {
  boundWindowResets,
  type ImplausibleTime,
  isPlausibleInstant,
  PLAUSIBILITY_SKEW_MS,
  windowHorizonMs,
} from "../time-plausibility";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { parseAnthropicApiResponse } from "./anthropic-api";
import { parseClaudeOauthUsage } from "./claude-oauth-usage";
import { parseClaudeSubscriptionResponse } from "./claude-subscription";
import { parseCodeAssistQuota } from "./code-assist-quota";
import { parseCodexResponse } from "./codex";
import { parseCodexUsage } from "./codex-usage";
import { parseCopilotResponse } from "./copilot";
import { parseCopilotQuota } from "./copilot-quota";
import { parseGeminiResponse } from "./gemini";
import { parseGenericResponse } from "./generic";
import { parseOpenAiResponse } from "./openai";
import { parseOpenRouterResponse } from "./openrouter";
import { parseOpenRouterKey } from "./openrouter-key";
import { usagePayloadEvidence } from "./overage-signals";
import type { ResponseInput, ResponseSignalParser } from "./response-input";

const RESPONSE_PARSERS: Readonly<Record<string, ResponseSignalParser>> = Object.freeze({
  claude: parseClaudeSubscriptionResponse,
  anthropic: parseAnthropicApiResponse,
  openai: parseOpenAiResponse,
  codex: parseCodexResponse,
  "github-copilot": parseCopilotResponse,
  google: parseGeminiResponse,
  "gemini-code-assist": parseGeminiResponse,
  antigravity: parseGeminiResponse,
  openrouter: parseOpenRouterResponse,
});

/**
 * Reads the quota signals of one upstream response, choosing the parser by canonical provider id:
 * `claude` → Claude subscription, `anthropic` → Anthropic API, `openai`, `codex`,
 * `github-copilot`, `google` / `gemini-code-assist` / `antigravity` → Gemini, `openrouter`;
 * any other id (groq, deepseek, mistral, xai, ollama…) → the generic OpenAI-compatible parser.
 * Pure and total: never throws. A convenience for a caller that knows a connection only by its
 * provider id; a caller that knows which family speaks calls that family's parser and
 * {@link boundSignals} itself (the planfirst gateway does, through each connection's connector).
 *
 * Every time it returns is plausible: a window reset beyond the window's
 * length plus skew (5 h, 7 d, 31 d monthly, 1 d daily, 7 d when unknown), and a failure's
 * `resetAt` / `retryAt` beyond its window's (7 d when it names none), is dropped, read as unknown
 * and listed in `implausible`, so one bogus header cannot switch a plan off for years.
 */
export function parseResponseSignals(provider: string, input: ResponseInput): ResponseSignals {
  // Most answers are plain successes with no quota headers: skip the header copy and parsing.
  if (isSilentSuccess(input)) return { windows: [] };
  const id = typeof provider === "string" ? provider.trim().toLowerCase() : "";
  const parser = Object.hasOwn(RESPONSE_PARSERS, id) ? RESPONSE_PARSERS[id] : undefined;
  const signals = parser ? parser(input) : parseGenericResponse({ ...input, provider: id });
  const observedAtMs = typeof input?.observedAtMs === "number" ? input.observedAtMs : Number.NaN;
  return boundSignals(signals, observedAtMs);
}

/** What {@link boundSignals} bounds: a reading's windows and, for a response, its failure. */
export interface BoundableSignals {
  windows: QuotaWindow[];
  failure?: UpstreamFailure;
  implausible?: ImplausibleTime[];
}

/**
 * The plausibility bounds, for a reading from any parser (a family parser of this package or a
 * caller's own): every window `resetAt` beyond its window's horizon plus skew, and a failure's
 * `resetAt` / `retryAt` beyond its window's (7 d when it names none), is set to null (read as
 * unknown) and appended to `implausible`. Provider-free. Mutates and returns `signals`; a reading
 * with no window and no failure, or a non-finite `observedAtMs` (epoch ms), is returned as it is.
 */
export function boundSignals<T extends BoundableSignals>(
  signals: T,
  observedAtMs: number,
): T & Pick<BoundableSignals, "implausible"> {
  if (!Number.isFinite(observedAtMs)) return signals;
  const failure = signals.failure;
  if (signals.windows.length === 0 && !failure) return signals;
  const implausible: ImplausibleTime[] = [];
  signals.windows = boundWindowResets(signals.windows, observedAtMs, implausible);
  if (failure) {
    const named = failure.windowId
      ? signals.windows.find((w) => w.windowId === failure.windowId)
      : undefined;
    const windowId = failure.windowId ?? null;
    const seconds = named?.windowSeconds;
    for (const key of ["resetAt", "retryAt"] as const) {
      const value = failure[key];
      if (value && !isPlausibleInstant(value, observedAtMs, windowId, seconds)) {
        implausible.push({
          windowId,
          field: key,
          source: key === "retryAt" ? "retry-after" : "failure",
          value,
          maxAheadMs: windowHorizonMs(windowId, seconds) + PLAUSIBILITY_SKEW_MS,
        });
        failure[key] = null;
      }
    }
  }
  if (implausible.length > 0) {
    signals.implausible = signals.implausible
      ? [...signals.implausible, ...implausible]
      : implausible;
  }
  return signals;
}

/**
 * Header names that may carry a quota signal, as fragments of the lower-case name: every family
 * parser and the LiteLLM-proxied forms read only names containing one of these.
 */
const SIGNAL_NAME_FRAGMENTS = [
  "limit",
  "retry",
  "reset",
  "quota",
  "usage",
  "codex",
  "anthropic",
  "llm_provider",
  "x-ms-",
];

/**
 * A header name holding any of {@link SIGNAL_NAME_FRAGMENTS}, in any case: one test per name
 * instead of a lower-case copy and a search per fragment.
 */
const SIGNAL_NAME = new RegExp(SIGNAL_NAME_FRAGMENTS.join("|"), "i");

/**
 * True when the response cannot yield windows or a failure: a 2xx/3xx status, no body, and plain
 * record headers none of whose names a parser reads. Cheaper than building the header map, so a
 * reader skips its parser for such an answer (most answers are plain successes). Pure and total.
 */
export function isSilentSuccess(input: ResponseInput): boolean {
  if (typeof input !== "object" || input === null) return false;
  const { status, headers, body } = input;
  if (typeof status !== "number" || !(status >= 200 && status < 400)) return false;
  if (body !== undefined && body !== null) return false;
  if (
    typeof headers !== "object" ||
    headers === null ||
    typeof (headers as Headers).get === "function"
  ) {
    return false;
  }
  for (const name in headers) if (SIGNAL_NAME.test(name)) return false;
  return true;
}

/**
 * Everything a usage-endpoint payload (or an in-band usage event such as Codex
 * `codex.rate_limits`) says: windows, overage evidence, dropped times.
 */
export interface UsageSignals {
  windows: QuotaWindow[];
  /** Overage evidence (Claude `extra_usage`, Codex `credits`, Copilot `overage_permitted`). */
  evidence?: OverageObservation;
  /** Resets beyond their window's horizon, dropped (read as unknown); see {@link boundSignals}. */
  implausible?: ImplausibleTime[];
}

/**
 * Windows and overage evidence from a provider's usage-endpoint payload (or the in-band Codex
 * `codex.rate_limits` event), with every reset bounded by its window as `parseResponseSignals`
 * does. Pure and total; the additive successor of {@link parseUsagePayload}. A convenience by
 * provider id, like {@link parseResponseSignals}: the family parsers and evidence readers
 * (`parseCodexUsage`, `codexUsageEvidence`…) are exported for a caller that knows the family.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseUsageSignals(
  provider: string,
  payload: unknown,
  observedAtMs: number,
): UsageSignals {
  const implausible: ImplausibleTime[] = [];
  const windows = parseUsagePayload(provider, payload, observedAtMs, implausible);
  const signals: UsageSignals = { windows };
  const evidence = usagePayloadEvidence(provider, payload, observedAtMs);
  if (evidence) signals.evidence = evidence;
  if (implausible.length > 0) signals.implausible = implausible;
  return signals;
}

/** A usage-endpoint payload parser: pure, total, epoch-ms observation time. */
export type UsagePayloadParser = (payload: unknown, observedAtMs: number) => QuotaWindow[];

/**
 * Usage-endpoint parsers by canonical provider id: `claude` (`/api/oauth/usage`),
 * `codex` (`/wham/usage`), `github-copilot` (`copilot_internal/user`), `gemini-code-assist`
 * (`retrieveUserQuota`), `antigravity` (`fetchAvailableModels`), `openrouter` (`/api/v1/key`).
 */
export const USAGE_ENDPOINT_PARSERS: Readonly<Record<string, UsagePayloadParser>> = Object.freeze({
  claude: parseClaudeOauthUsage,
  codex: parseCodexUsage,
  "github-copilot": parseCopilotQuota,
  "gemini-code-assist": parseCodeAssistQuota,
  antigravity: parseCodeAssistQuota,
  openrouter: parseOpenRouterKey,
});

/**
 * Windows from a provider's usage-endpoint payload via {@link USAGE_ENDPOINT_PARSERS}; a provider
 * with no usage endpoint gives `[]`. Pure and total. A reset beyond its window's horizon is
 * dropped (see `parseResponseSignals`); {@link parseUsageSignals} also reports which.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 * @param implausible receives every dropped reset, when given
 */
export function parseUsagePayload(
  provider: string,
  payload: unknown,
  observedAtMs: number,
  implausible: ImplausibleTime[] = [],
): QuotaWindow[] {
  const id = typeof provider === "string" ? provider.trim().toLowerCase() : "";
  const parser = Object.hasOwn(USAGE_ENDPOINT_PARSERS, id) ? USAGE_ENDPOINT_PARSERS[id] : undefined;
  const windows = parser ? parser(payload, observedAtMs) : [];
  return Number.isFinite(observedAtMs)
    ? boundWindowResets(windows, observedAtMs, implausible)
    : windows;
}
