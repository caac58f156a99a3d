import type { IrFinishReason } from "../ir";

/** Hub finish reason for an Anthropic `stop_reason`; unknown or null → `stop`. */
export function finishFromAnthropic(reason: unknown): IrFinishReason {
  switch (reason) {
    case "stop_sequence":
      return "stop_sequence";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    case "pause_turn":
      return "pause";
    default:
      return "stop";
  }
}

/** Anthropic `stop_reason` for a hub finish reason. */
export function finishToAnthropic(reason: IrFinishReason): string {
  switch (reason) {
    case "stop_sequence":
      return "stop_sequence";
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    case "pause":
      return "pause_turn";
    default:
      return "end_turn";
  }
}
