import type { EncodeResponseOptions, StreamEncoder } from "../codec";
import { emptyIrUsage, type IrStreamError, type IrUsage } from "../ir";
import type { Json } from "../ir/guards";
import { type EncodedStreamPart, StreamEncoderBase } from "../sse/stream-encoder-base";
import type { SseEvent } from "../types";
import { usageToAnthropic } from "./anthropic-messages-api";
import { anthropicMessageId } from "./encode-response";
import { finishToAnthropic } from "./finish-reason";

/**
 * An encoder of one Messages API stream for an Anthropic client: `message_start`, content
 * blocks, `message_delta` with the stop reason and usage, `message_stop`; an error ends it with
 * `event: error` and no `message_stop`. Reasoning from another protocol is not written (it would
 * carry no valid signature; see `encodeMessagesResponse`).
 */
export function encodeMessagesStream(options: EncodeResponseOptions): StreamEncoder {
  return new MessagesStreamEncoder(options);
}

function frame(event: string, payload: Json): SseEvent {
  return { event, data: JSON.stringify(payload) };
}

class MessagesStreamEncoder extends StreamEncoderBase {
  private id = anthropicMessageId(undefined);
  private nextBlock = 0;
  private open: { index: number; kind: "text" | "tool"; callIndex?: number } | null = null;
  private usage: IrUsage | null = null;

  constructor(private readonly options: EncodeResponseOptions) {
    super();
  }

  protected adoptId(id: string): void {
    this.id = anthropicMessageId(id);
  }

  protected encode(part: EncodedStreamPart, out: SseEvent[]): void {
    switch (part.type) {
      case "text-delta":
        if (this.open?.kind !== "text") this.openBlock(out, "text", { type: "text", text: "" });
        out.push(
          frame("content_block_delta", {
            type: "content_block_delta",
            index: this.open?.index,
            delta: { type: "text_delta", text: part.text },
          }),
        );
        break;
      case "tool-call-start":
        this.openBlock(
          out,
          "tool",
          { type: "tool_use", id: part.id, name: part.name, input: {} },
          part.callIndex,
        );
        break;
      case "tool-call-delta":
        if (this.open?.kind === "tool" && this.open.callIndex === part.callIndex) {
          out.push(
            frame("content_block_delta", {
              type: "content_block_delta",
              index: this.open.index,
              delta: { type: "input_json_delta", partial_json: part.delta },
            }),
          );
        }
        break;
      case "tool-call-end":
        if (this.open?.kind === "tool" && this.open.callIndex === part.callIndex)
          this.closeBlock(out);
        break;
      case "usage":
        this.usage = part.usage;
        break;
      case "finish":
        this.closeBlock(out);
        out.push(
          frame("message_delta", {
            type: "message_delta",
            delta: {
              stop_reason: finishToAnthropic(part.reason),
              stop_sequence: part.stopSequence ?? null,
            },
            usage: usageToAnthropic(this.usage ?? emptyIrUsage()),
          }),
        );
        out.push(frame("message_stop", { type: "message_stop" }));
        break;
      default:
        break;
    }
  }

  protected errorFrames(error: IrStreamError): SseEvent[] {
    return messagesErrorFrames(error);
  }

  protected writeStart(out: SseEvent[]): void {
    out.push(
      frame("message_start", {
        type: "message_start",
        message: {
          id: this.id,
          type: "message",
          role: "assistant",
          model: this.options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    );
  }

  private openBlock(out: SseEvent[], kind: "text" | "tool", block: Json, callIndex?: number): void {
    this.closeBlock(out);
    const index = this.nextBlock++;
    this.open = callIndex === undefined ? { index, kind } : { index, kind, callIndex };
    out.push(
      frame("content_block_start", { type: "content_block_start", index, content_block: block }),
    );
  }

  private closeBlock(out: SseEvent[]): void {
    if (!this.open) return;
    out.push(frame("content_block_stop", { type: "content_block_stop", index: this.open.index }));
    this.open = null;
  }
}

/** A Messages stream's error frame: `event: error`, with no `message_stop` after. */
export function messagesErrorFrames(error: IrStreamError): SseEvent[] {
  return [frame("error", { type: "error", error: { type: error.type, message: error.message } })];
}
