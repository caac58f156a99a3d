import type { IrFinishReason } from "./finish-reason";
import type { IrUsage } from "./usage";

/**
 * One event of a streamed answer in the hub's shape. Tool calls are keyed by `callIndex`, their
 * order of appearance in the answer (0, 1, …). A stream is complete only when it holds a `finish`
 * part; an `error` part ends it with an explicit error. `usage` parts are cumulative: the last
 * one is the total.
 */
export type IrStreamPart =
  | { type: "start"; id?: string; model?: string }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | {
      type: "reasoning-end";
      signature?: string;
      encryptedContent?: string;
      redactedData?: string;
      id?: string;
    }
  | {
      type: "tool-call-start";
      callIndex: number;
      id: string;
      name: string;
      kind: "function" | "custom";
      /** The upstream's own output item id (Responses `fc_…`, `ctc_…`), when it has one. */
      itemId?: string;
    }
  | { type: "tool-call-delta"; callIndex: number; delta: string }
  | { type: "tool-call-end"; callIndex: number }
  | { type: "usage"; usage: IrUsage }
  | { type: "finish"; reason: IrFinishReason; stopSequence?: string }
  | { type: "error"; error: IrStreamError };

/** The error that ends a stream: upstream-reported, or a cut (`upstream_stream_cut`). */
export interface IrStreamError {
  /** Error type (`api_error`, `overloaded_error`, `upstream_error`…). */
  type: string;
  /** Stable short code (`upstream_stream_cut`, `timeout`, the upstream's code…). */
  code: string;
  /** Human-readable reason; never holds a credential. */
  message: string;
}

/** The error part for an upstream stream that ended without completing. */
export function streamCutError(): IrStreamError {
  return {
    type: "upstream_error",
    code: "upstream_stream_cut",
    message: "the upstream stream ended before the response was complete",
  };
}
