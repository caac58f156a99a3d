import type { IrFinishReason } from "../ir";

/** Hub finish reason for a chat `finish_reason`; unknown or null → `stop`. */
export function finishFromChat(reason: unknown): IrFinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

/** Chat `finish_reason` for a hub finish reason. */
export function finishToChat(reason: IrFinishReason): string {
  switch (reason) {
    case "length":
    case "tool_calls":
    case "content_filter":
      return reason;
    default:
      return "stop";
  }
}
