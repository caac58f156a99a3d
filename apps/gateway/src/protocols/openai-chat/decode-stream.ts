import type { StreamDecoder } from "../codec";
import { type IrFinishReason, type IrStreamPart, type IrUsage, streamCutError } from "../ir";
import { isRecord, parseJsonObject } from "../ir/guards";
import type { SseEvent } from "../types";
import { finishFromChat } from "./finish-reason";
import { chatChunkSchema, usageFromParsedChat } from "./openai-chat-api";

/**
 * A decoder of one chat completions stream. The stream is complete at `data: [DONE]`, or as
 * soon as both a finish reason and usage arrived (servers differ on sending `[DONE]`).
 */
export function decodeChatStream(): StreamDecoder {
  return new ChatStreamDecoder();
}

class ChatStreamDecoder implements StreamDecoder {
  private started = false;
  private closed = false;
  private reasoningOpen = false;
  /** Chat `tool_calls[].index` → hub callIndex, for calls still open. */
  private readonly openCalls = new Map<number, number>();
  private nextCall = 0;
  private finish: IrFinishReason | null = null;
  private usage: IrUsage | null = null;

  push(event: SseEvent): IrStreamPart[] {
    if (this.closed) return [];
    if (event.data === "[DONE]") return this.complete([]);
    const raw = parseJsonObject(event.data);
    if (!raw) return [];
    if (raw.error !== undefined && raw.error !== null && !Array.isArray(raw.choices)) {
      this.closed = true;
      const e = isRecord(raw.error) ? raw.error : {};
      const code = String(e.code ?? e.type ?? "upstream_error");
      return [
        {
          type: "error",
          error: {
            type: String(e.type ?? "api_error"),
            code,
            message: String(e.message ?? "upstream stream error"),
          },
        },
      ];
    }
    const parsed = chatChunkSchema.safeParse(raw);
    if (!parsed.success) return [];
    const chunk = parsed.data;
    const out: IrStreamPart[] = [];
    if (!this.started) {
      this.started = true;
      const start: IrStreamPart = { type: "start" };
      if (typeof chunk.id === "string") start.id = chunk.id;
      if (typeof chunk.model === "string") start.model = chunk.model;
      out.push(start);
    }
    const usage = usageFromParsedChat(chunk.usage);
    if (usage) this.usage = usage;
    const choice = chunk.choices?.[0];
    if (choice) {
      const delta = choice.delta ?? {};
      const thinking = delta.reasoning_content ?? delta.reasoning;
      if (typeof thinking === "string" && thinking !== "") {
        this.reasoningOpen = true;
        out.push({ type: "reasoning-delta", text: thinking });
      }
      if (typeof delta.content === "string" && delta.content !== "") {
        this.endReasoning(out);
        out.push({ type: "text-delta", text: delta.content });
      }
      for (const call of delta.tool_calls ?? []) {
        this.endReasoning(out);
        const chatIndex = typeof call.index === "number" ? call.index : 0;
        let callIndex = this.openCalls.get(chatIndex);
        if (callIndex === undefined) {
          callIndex = this.nextCall++;
          this.openCalls.set(chatIndex, callIndex);
          out.push({
            type: "tool-call-start",
            callIndex,
            id: call.id ?? `call_planfirst_${callIndex}`,
            name: call.custom?.name ?? call.function?.name ?? "",
            kind: call.type === "custom" || call.custom ? "custom" : "function",
          });
        }
        const args = call.custom ? call.custom.input : call.function?.arguments;
        if (typeof args === "string" && args !== "")
          out.push({ type: "tool-call-delta", callIndex, delta: args });
      }
      if (typeof choice.finish_reason === "string") {
        this.finish = finishFromChat(choice.finish_reason);
        this.endReasoning(out);
        this.endCalls(out);
      }
    }
    if (this.finish !== null && this.usage !== null) return this.complete(out);
    return out;
  }

  end(): IrStreamPart[] {
    if (this.closed) return [];
    this.closed = true;
    return [{ type: "error", error: streamCutError() }];
  }

  private endReasoning(out: IrStreamPart[]): void {
    if (!this.reasoningOpen) return;
    this.reasoningOpen = false;
    out.push({ type: "reasoning-end" });
  }

  private endCalls(out: IrStreamPart[]): void {
    for (const callIndex of this.openCalls.values()) out.push({ type: "tool-call-end", callIndex });
    this.openCalls.clear();
  }

  private complete(out: IrStreamPart[]): IrStreamPart[] {
    this.closed = true;
    if (!this.started) out.unshift({ type: "start" });
    this.endReasoning(out);
    this.endCalls(out);
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    out.push({ type: "finish", reason: this.finish ?? "stop" });
    return out;
  }
}
