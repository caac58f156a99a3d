import type { ResponseSignals } from "../upstream-failure";
import { openAiStyleSignals } from "./openai";
import { type ResponseInput, toContext } from "./response-input";

/** Providers whose `x-ratelimit-*-requests` dimension counts per day, not per minute. */
const REQUESTS_PER_DAY = new Set(["groq"]);

/** Input of {@link parseGenericResponse}: a response plus the canonical provider id. */
export interface GenericResponseInput extends ResponseInput {
  /** Canonical provider id (`groq`, `deepseek`, `mistral`, `xai`, `ollama`…); tunes window ids. */
  provider?: string;
}

/**
 * Signals from any OpenAI-compatible server (groq, deepseek, mistral, xai, cerebras, ollama…):
 * `x-ratelimit-*` windows (Groq's requests window is per day → `rpd`; Cerebras names it in the
 * suffix; Mistral `x-ratelimitbysize-*` → `tpm` / `monthly`), `Retry-After`, then the IETF
 * `RateLimit` fields. Errors: 402 (DeepSeek "Insufficient Balance") and `insufficient_quota` →
 * credits_exhausted; 429 → rate_limited with Retry-After or the "try again in" hint;
 * 401/403 → auth_invalid; 503 → overloaded.
 */
export function parseGenericResponse(input: GenericResponseInput): ResponseSignals {
  const provider = typeof input?.provider === "string" ? input.provider.toLowerCase() : "";
  return openAiStyleSignals(toContext(input), REQUESTS_PER_DAY.has(provider) ? "day" : "minute");
}
