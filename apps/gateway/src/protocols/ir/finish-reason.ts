import { z } from "zod";

/**
 * Why the model stopped, in the hub's words: `stop` (natural end), `stop_sequence` (a client
 * stop sequence matched), `length` (output token limit), `tool_calls` (waiting for tool
 * results), `content_filter` (refused or filtered), `pause` (a long turn paused by the server;
 * the client continues it), `other`.
 */
export const irFinishReasonSchema = z.enum([
  "stop",
  "stop_sequence",
  "length",
  "tool_calls",
  "content_filter",
  "pause",
  "other",
]);

/** See {@link irFinishReasonSchema}. */
export type IrFinishReason = z.infer<typeof irFinishReasonSchema>;
