import type { EncodeResponseOptions, StreamEncoder } from "../codec";
import type { IrStreamError, IrUsage } from "../ir";
import type { Json } from "../ir/guards";
import { type EncodedStreamPart, StreamEncoderBase } from "../sse/stream-encoder-base";
import type { SseEvent } from "../types";
import { itemId, responseEnvelope, responsesId } from "./encode-response";
import { finishToResponses } from "./finish-reason";
import { usageToResponses } from "./openai-responses-api";

type OpenItem =
  | { kind: "message"; index: number; id: string; text: string }
  | {
      kind: "call";
      index: number;
      id: string;
      callIndex: number;
      custom: boolean;
      callId: string;
      name: string;
      args: string;
    };

/**
 * An encoder of one Responses API stream for a Responses client (Codex, the AI SDK's default
 * OpenAI model): `response.created`, `response.in_progress`, output items with their
 * `output_text`, `function_call_arguments` and `custom_tool_call_input` deltas and dones,
 * then `response.completed` (or `response.incomplete`) with usage. An error ends the stream
 * with an `error` event and `response.failed`, never with a completion. Reasoning from another
 * protocol is not written (see `encodeResponsesResponse`).
 */
export function encodeResponsesStream(options: EncodeResponseOptions): StreamEncoder {
  return new ResponsesStreamEncoder(options);
}

class ResponsesStreamEncoder extends StreamEncoderBase {
  private id = responsesId(undefined);
  private sequence = 0;
  private open: OpenItem | null = null;
  private readonly done: Json[] = [];
  private usage: IrUsage | null = null;

  constructor(private readonly options: EncodeResponseOptions) {
    super();
  }

  protected adoptId(id: string): void {
    this.id = responsesId(id);
  }

  protected encode(part: EncodedStreamPart, out: SseEvent[]): void {
    switch (part.type) {
      case "text-delta": {
        if (this.open?.kind !== "message") {
          this.closeItem(out);
          const index = this.done.length;
          const id = itemId("msg", this.id, index);
          this.open = { kind: "message", index, id, text: "" };
          out.push(
            this.event("response.output_item.added", {
              output_index: index,
              item: { id, type: "message", status: "in_progress", content: [], role: "assistant" },
            }),
          );
          out.push(
            this.event("response.content_part.added", {
              item_id: id,
              output_index: index,
              content_index: 0,
              part: { type: "output_text", annotations: [], text: "" },
            }),
          );
        }
        const item = this.open as Extract<OpenItem, { kind: "message" }>;
        item.text += part.text;
        out.push(
          this.event("response.output_text.delta", {
            item_id: item.id,
            output_index: item.index,
            content_index: 0,
            delta: part.text,
            logprobs: [],
          }),
        );
        break;
      }
      case "tool-call-start": {
        this.closeItem(out);
        const index = this.done.length;
        const custom = part.kind === "custom";
        const id = itemId(custom ? "ctc" : "fc", this.id, index);
        this.open = {
          kind: "call",
          index,
          id,
          callIndex: part.callIndex,
          custom,
          callId: part.id,
          name: part.name,
          args: "",
        };
        out.push(
          this.event("response.output_item.added", {
            output_index: index,
            item: this.callItem(this.open, "in_progress"),
          }),
        );
        break;
      }
      case "tool-call-delta": {
        const item = this.open;
        if (item?.kind !== "call" || item.callIndex !== part.callIndex) break;
        item.args += part.delta;
        const type = item.custom
          ? "response.custom_tool_call_input.delta"
          : "response.function_call_arguments.delta";
        out.push(
          this.event(type, { item_id: item.id, output_index: item.index, delta: part.delta }),
        );
        break;
      }
      case "tool-call-end":
        if (this.open?.kind === "call" && this.open.callIndex === part.callIndex)
          this.closeItem(out);
        break;
      case "usage":
        this.usage = part.usage;
        break;
      case "finish": {
        this.closeItem(out);
        const finish = finishToResponses(part.reason);
        const type = finish.status === "completed" ? "response.completed" : "response.incomplete";
        out.push(
          this.event(type, {
            response: {
              ...responseEnvelope(this.id, this.options, finish.status),
              incomplete_details: finish.incompleteDetails,
              output: this.done,
              usage: this.usage ? usageToResponses(this.usage) : null,
            },
          }),
        );
        break;
      }
      default:
        break;
    }
  }

  protected errorFrames(error: IrStreamError): SseEvent[] {
    // A failure before any frame still opens the response, so `response.failed` names one.
    const out: SseEvent[] = [];
    this.begin(out);
    out.push(this.event("error", { code: error.code, message: error.message, param: null }));
    out.push(
      this.event("response.failed", {
        response: {
          ...responseEnvelope(this.id, this.options, "failed"),
          error: { code: error.code, message: error.message },
          output: this.done,
          usage: this.usage ? usageToResponses(this.usage) : null,
        },
      }),
    );
    return out;
  }

  private event(type: string, fields: Json): SseEvent {
    return {
      event: type,
      data: JSON.stringify({ type, sequence_number: this.sequence++, ...fields }),
    };
  }

  protected writeStart(out: SseEvent[]): void {
    const response = responseEnvelope(this.id, this.options, "in_progress");
    out.push(this.event("response.created", { response }));
    out.push(this.event("response.in_progress", { response }));
  }

  private callItem(item: Extract<OpenItem, { kind: "call" }>, status: string): Json {
    return item.custom
      ? {
          id: item.id,
          type: "custom_tool_call",
          status,
          call_id: item.callId,
          name: item.name,
          input: item.args,
        }
      : {
          id: item.id,
          type: "function_call",
          status,
          call_id: item.callId,
          name: item.name,
          arguments: item.args,
        };
  }

  private closeItem(out: SseEvent[]): void {
    const item = this.open;
    if (!item) return;
    this.open = null;
    if (item.kind === "message") {
      const textPart = { type: "output_text", annotations: [], text: item.text };
      out.push(
        this.event("response.output_text.done", {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          text: item.text,
          logprobs: [],
        }),
      );
      out.push(
        this.event("response.content_part.done", {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          part: textPart,
        }),
      );
      const done = {
        id: item.id,
        type: "message",
        status: "completed",
        content: [textPart],
        role: "assistant",
      };
      this.done.push(done);
      out.push(this.event("response.output_item.done", { output_index: item.index, item: done }));
      return;
    }
    if (item.custom)
      out.push(
        this.event("response.custom_tool_call_input.done", {
          item_id: item.id,
          output_index: item.index,
          input: item.args,
        }),
      );
    else
      out.push(
        this.event("response.function_call_arguments.done", {
          item_id: item.id,
          output_index: item.index,
          arguments: item.args,
        }),
      );
    const done = this.callItem(item, "completed");
    this.done.push(done);
    out.push(this.event("response.output_item.done", { output_index: item.index, item: done }));
  }
}

/**
 * A Responses stream's error frames for a stream under way (the relay's): an `error` event, then
 * `response.failed`. The upstream's sequence numbers are not known here, so none is written.
 */
export function responsesErrorFrames(error: IrStreamError): SseEvent[] {
  return [
    {
      event: "error",
      data: JSON.stringify({
        type: "error",
        code: error.code,
        message: error.message,
        param: null,
      }),
    },
    {
      event: "response.failed",
      data: JSON.stringify({
        type: "response.failed",
        response: {
          object: "response",
          status: "failed",
          error: { code: error.code, message: error.message },
        },
      }),
    },
  ];
}
