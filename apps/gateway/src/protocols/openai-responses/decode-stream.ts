import type { StreamDecoder } from "../codec";
import { type IrStreamPart, streamCutError } from "../ir";
import { isRecord, parseJsonObject, str } from "../ir/guards";
import type { SseEvent } from "../types";
import { finishFromResponses } from "./finish-reason";
import {
  responsesOutputItemSchema,
  responsesResponseSchema,
  usageFromResponses,
} from "./openai-responses-api";

interface OpenCall {
  callIndex: number;
  sawDelta: boolean;
}

/**
 * A decoder of one Responses API stream: complete at `response.completed` (or
 * `response.incomplete`, which finishes with `length` or `content_filter`); `response.failed`
 * and `error` end it with an error part.
 */
export function decodeResponsesStream(): StreamDecoder {
  return new ResponsesStreamDecoder();
}

class ResponsesStreamDecoder implements StreamDecoder {
  private closed = false;
  private started = false;
  private nextCall = 0;
  private sawToolCall = false;
  /** Output item id → open tool call. */
  private readonly calls = new Map<string, OpenCall>();

  push(event: SseEvent): IrStreamPart[] {
    if (this.closed) return [];
    const payload = parseJsonObject(event.data);
    if (!payload) return [];
    const type = event.event ?? str(payload.type);
    switch (type) {
      case "response.created":
      case "response.in_progress":
        return this.start(payload.response);
      case "response.output_item.added": {
        const out = this.start(undefined);
        const item = responsesOutputItemSchema.safeParse(payload.item);
        if (!item.success) return out;
        const it = item.data;
        if (
          (it.type === "function_call" || it.type === "custom_tool_call") &&
          typeof it.id === "string"
        ) {
          const callIndex = this.nextCall++;
          this.sawToolCall = true;
          this.calls.set(it.id, { callIndex, sawDelta: false });
          out.push({
            type: "tool-call-start",
            callIndex,
            id: it.call_id ?? it.id,
            name: it.name ?? "",
            kind: it.type === "custom_tool_call" ? "custom" : "function",
            itemId: it.id,
          });
        }
        return out;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        return typeof payload.delta === "string" && payload.delta !== ""
          ? [{ type: "text-delta", text: payload.delta }]
          : [];
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return typeof payload.delta === "string" && payload.delta !== ""
          ? [{ type: "reasoning-delta", text: payload.delta }]
          : [];
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta": {
        const call = this.calls.get(String(payload.item_id));
        if (!call || typeof payload.delta !== "string" || payload.delta === "") return [];
        call.sawDelta = true;
        return [{ type: "tool-call-delta", callIndex: call.callIndex, delta: payload.delta }];
      }
      case "response.output_item.done": {
        const item = responsesOutputItemSchema.safeParse(payload.item);
        if (!item.success) return [];
        const it = item.data;
        if (it.type === "reasoning") {
          const part: IrStreamPart = { type: "reasoning-end" };
          if (typeof it.encrypted_content === "string")
            part.encryptedContent = it.encrypted_content;
          if (typeof it.id === "string") part.id = it.id;
          return [part];
        }
        const call = typeof it.id === "string" ? this.calls.get(it.id) : undefined;
        if (!call) return [];
        this.calls.delete(String(it.id));
        const out: IrStreamPart[] = [];
        // Some servers send the whole call only in the done item.
        const whole = it.type === "custom_tool_call" ? it.input : it.arguments;
        if (!call.sawDelta && typeof whole === "string" && whole !== "")
          out.push({ type: "tool-call-delta", callIndex: call.callIndex, delta: whole });
        out.push({ type: "tool-call-end", callIndex: call.callIndex });
        return out;
      }
      case "response.completed":
      case "response.incomplete": {
        this.closed = true;
        const out = this.start(payload.response);
        for (const call of this.calls.values())
          out.push({ type: "tool-call-end", callIndex: call.callIndex });
        this.calls.clear();
        const response = responsesResponseSchema.safeParse(payload.response);
        const r = response.success ? response.data : {};
        const usage = usageFromResponses(r.usage);
        if (usage) out.push({ type: "usage", usage });
        out.push({
          type: "finish",
          reason: finishFromResponses(
            type === "response.incomplete" ? "incomplete" : r.status,
            r.incomplete_details?.reason,
            this.sawToolCall,
          ),
        });
        return out;
      }
      case "response.failed": {
        this.closed = true;
        const response = isRecord(payload.response) ? payload.response : {};
        const e = isRecord(response.error) ? response.error : {};
        return [
          {
            type: "error",
            error: {
              type: "api_error",
              code: String(e.code ?? "response_failed"),
              message: String(e.message ?? "the upstream response failed"),
            },
          },
        ];
      }
      case "error": {
        this.closed = true;
        const e = isRecord(payload.error) ? payload.error : payload;
        return [
          {
            type: "error",
            error: {
              type: String(e.type === "error" ? "api_error" : (e.type ?? "api_error")),
              code: String(e.code ?? "upstream_error"),
              message: String(e.message ?? "upstream stream error"),
            },
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

  private start(response: unknown): IrStreamPart[] {
    if (this.started) return [];
    this.started = true;
    const part: IrStreamPart = { type: "start" };
    if (isRecord(response)) {
      if (typeof response.id === "string") part.id = response.id;
      if (typeof response.model === "string") part.model = response.model;
    }
    return [part];
  }
}
