import type { StreamDecoder } from "../codec";
import { type IrFinishReason, type IrStreamPart, type IrUsage, streamCutError } from "../ir";
import { isRecord, parseJsonObject, str } from "../ir/guards";
import type { SseEvent } from "../types";
import {
  mergeAnthropicUsage,
  type RawAnthropicUsage,
  usageFromAnthropic,
} from "./anthropic-messages-api";
import { finishFromAnthropic } from "./finish-reason";

type OpenBlock =
  | { kind: "text" }
  | { kind: "thinking"; signature?: string }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; callIndex: number }
  | { kind: "other" };

/** A decoder of one Messages API stream; complete at `message_stop`. */
export function decodeMessagesStream(): StreamDecoder {
  return new MessagesStreamDecoder();
}

class MessagesStreamDecoder implements StreamDecoder {
  private closed = false;
  private started = false;
  private readonly blocks = new Map<number, OpenBlock>();
  private nextCall = 0;
  private usage: RawAnthropicUsage | null = null;
  private finish: IrFinishReason | null = null;
  private stopSequence: string | undefined;

  push(event: SseEvent): IrStreamPart[] {
    if (this.closed) return [];
    const payload = parseJsonObject(event.data);
    const kind = event.event ?? str(payload?.type);
    if (!payload) return [];
    switch (kind) {
      case "message_start": {
        const message = isRecord(payload.message) ? payload.message : {};
        this.usage = {};
        mergeAnthropicUsage(this.usage, message.usage);
        return this.start(str(message.id), str(message.model));
      }
      case "content_block_start": {
        const out = this.start();
        const index = typeof payload.index === "number" ? payload.index : 0;
        const block = isRecord(payload.content_block) ? payload.content_block : {};
        if (block.type === "text") {
          this.blocks.set(index, { kind: "text" });
          if (typeof block.text === "string" && block.text !== "")
            out.push({ type: "text-delta", text: block.text });
        } else if (block.type === "thinking") {
          this.blocks.set(index, { kind: "thinking" });
          if (typeof block.thinking === "string" && block.thinking !== "")
            out.push({ type: "reasoning-delta", text: block.thinking });
        } else if (block.type === "redacted_thinking") {
          this.blocks.set(index, { kind: "redacted", data: String(block.data ?? "") });
        } else if (block.type === "tool_use") {
          const callIndex = this.nextCall++;
          this.blocks.set(index, { kind: "tool", callIndex });
          out.push({
            type: "tool-call-start",
            callIndex,
            id: String(block.id ?? `toolu_planfirst_${callIndex}`),
            name: String(block.name ?? ""),
            kind: "function",
          });
        } else this.blocks.set(index, { kind: "other" });
        return out;
      }
      case "content_block_delta": {
        const block = this.blocks.get(typeof payload.index === "number" ? payload.index : -1);
        const delta = isRecord(payload.delta) ? payload.delta : {};
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "")
          return [{ type: "text-delta", text: delta.text }];
        if (
          delta.type === "thinking_delta" &&
          typeof delta.thinking === "string" &&
          delta.thinking !== ""
        )
          return [{ type: "reasoning-delta", text: delta.thinking }];
        if (
          delta.type === "signature_delta" &&
          block?.kind === "thinking" &&
          typeof delta.signature === "string"
        ) {
          block.signature = (block.signature ?? "") + delta.signature;
          return [];
        }
        if (
          delta.type === "input_json_delta" &&
          block?.kind === "tool" &&
          typeof delta.partial_json === "string" &&
          delta.partial_json !== ""
        ) {
          return [
            { type: "tool-call-delta", callIndex: block.callIndex, delta: delta.partial_json },
          ];
        }
        return [];
      }
      case "content_block_stop": {
        const index = typeof payload.index === "number" ? payload.index : -1;
        const block = this.blocks.get(index);
        this.blocks.delete(index);
        if (block?.kind === "tool") return [{ type: "tool-call-end", callIndex: block.callIndex }];
        if (block?.kind === "thinking")
          return [
            block.signature === undefined
              ? { type: "reasoning-end" }
              : { type: "reasoning-end", signature: block.signature },
          ];
        if (block?.kind === "redacted")
          return [{ type: "reasoning-end", redactedData: block.data }];
        return [];
      }
      case "message_delta": {
        this.usage ??= {};
        mergeAnthropicUsage(this.usage, payload.usage);
        const delta = isRecord(payload.delta) ? payload.delta : {};
        if (typeof delta.stop_reason === "string")
          this.finish = finishFromAnthropic(delta.stop_reason);
        if (typeof delta.stop_sequence === "string") this.stopSequence = delta.stop_sequence;
        return [];
      }
      case "message_stop": {
        this.closed = true;
        const out = this.start();
        const usage = this.usage ? usageFromAnthropic(this.usage) : null;
        if (usage) out.push({ type: "usage", usage });
        const finish: IrStreamPart = { type: "finish", reason: this.finish ?? "stop" };
        if (this.stopSequence !== undefined) finish.stopSequence = this.stopSequence;
        out.push(finish);
        return out;
      }
      case "error": {
        this.closed = true;
        const e = isRecord(payload.error) ? payload.error : {};
        const type = String(e.type ?? "api_error");
        return [
          {
            type: "error",
            error: { type, code: type, message: String(e.message ?? "upstream stream error") },
          },
        ];
      }
      default:
        return [];
    }
  }

  end(): IrStreamPart[] {
    if (this.closed) return [];
    this.closed = true;
    return [{ type: "error", error: streamCutError() }];
  }

  reported(): IrUsage | null {
    return this.usage ? usageFromAnthropic(this.usage) : null;
  }

  private start(id?: string, model?: string): IrStreamPart[] {
    if (this.started) return [];
    this.started = true;
    const part: IrStreamPart = { type: "start" };
    if (id !== undefined) part.id = id;
    if (model !== undefined) part.model = model;
    return [part];
  }
}
