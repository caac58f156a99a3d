/** Anthropic `stop_reason` for an OpenAI `finish_reason`; unknown or null → `end_turn`. */
export function anthropicStopReason(finishReason: unknown): string {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

/** OpenAI `finish_reason` for an Anthropic `stop_reason`; unknown or null → `stop`. */
export function openAiFinishReason(stopReason: unknown): string {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}
