/**
 * Token usage of one response in one shape for both protocols. `inputTokens` INCLUDES cached
 * input (the OpenAI convention); for Anthropic it is `input_tokens + cache_read_input_tokens +
 * cache_creation_input_tokens`. All values are token counts.
 */
export interface NormalizedUsage {
  /** Every prompt token, cached or not. */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`). */
  cachedInputTokens: number;
  /** Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`; 0 on OpenAI). */
  cacheWriteTokens: number;
}

/** One server-sent event: the `event:` name when there was one, and the joined `data:` lines. */
export interface SseEvent {
  event?: string;
  data: string;
}
