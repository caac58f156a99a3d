import type { IrFinishReason } from "../ir";

/**
 * Hub finish reason for a Responses `status` and `incomplete_details.reason`: completed with a
 * tool call → `tool_calls`; incomplete for `max_output_tokens` → `length`, for `content_filter`
 * → `content_filter`; otherwise `stop`.
 */
export function finishFromResponses(
  status: unknown,
  incompleteReason: unknown,
  sawToolCall: boolean,
): IrFinishReason {
  if (status === "incomplete") {
    if (incompleteReason === "content_filter") return "content_filter";
    return "length";
  }
  return sawToolCall ? "tool_calls" : "stop";
}

/** The Responses `status` and `incomplete_details` for a hub finish reason. */
export function finishToResponses(reason: IrFinishReason): {
  status: string;
  incompleteDetails: { reason: string } | null;
} {
  if (reason === "length")
    return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
  if (reason === "content_filter")
    return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
  return { status: "completed", incompleteDetails: null };
}
