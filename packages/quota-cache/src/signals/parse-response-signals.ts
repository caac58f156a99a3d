import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals } from "../upstream-failure";
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
 * Pure and total: never throws.
 */
export function parseResponseSignals(provider: string, input: ResponseInput): ResponseSignals {
  // Most answers are plain successes with no quota headers: skip the header copy and parsing.
  if (isSilentSuccess(input)) return { windows: [] };
  const id = typeof provider === "string" ? provider.trim().toLowerCase() : "";
  const parser = Object.hasOwn(RESPONSE_PARSERS, id) ? RESPONSE_PARSERS[id] : undefined;
  return parser ? parser(input) : parseGenericResponse({ ...input, provider: id });
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
 * True when the response cannot yield windows or a failure: a 2xx/3xx status, no body, and plain
 * record headers none of whose names a parser reads. Cheaper than building the header map.
 */
function isSilentSuccess(input: ResponseInput): boolean {
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
  for (const name in headers) {
    const lower = name.toLowerCase();
    for (const fragment of SIGNAL_NAME_FRAGMENTS) if (lower.includes(fragment)) return false;
  }
  return true;
}

/** A usage-endpoint payload parser: pure, total, epoch-ms observation time. */
export type UsagePayloadParser = (payload: unknown, observedAtMs: number) => QuotaWindow[];

/**
 * Usage-endpoint parsers by canonical provider id, for the pollers: `claude` (`/api/oauth/usage`),
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
 * with no usage endpoint gives `[]`. Pure and total.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseUsagePayload(
  provider: string,
  payload: unknown,
  observedAtMs: number,
): QuotaWindow[] {
  const id = typeof provider === "string" ? provider.trim().toLowerCase() : "";
  const parser = Object.hasOwn(USAGE_ENDPOINT_PARSERS, id) ? USAGE_ENDPOINT_PARSERS[id] : undefined;
  return parser ? parser(payload, observedAtMs) : [];
}
