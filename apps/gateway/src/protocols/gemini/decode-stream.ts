import type { StreamDecoder } from "../codec";
import { type IrFinishReason, type IrStreamPart, type IrUsage, streamCutError } from "../ir";
import { isRecord, parseJsonObject } from "../ir/guards";
import type { SseEvent } from "../types";
import { finishFromGemini } from "./finish-reason";
import { geminiResponseSchema, unwrapCodeAssist, usageFromGemini } from "./gemini-api";

/**
 * A decoder of one Gemini stream (`:streamGenerateContent?alt=sse`, each `data:` a Code Assist
 * `{response: {...}}` or a plain Gemini chunk). Text parts are deltas; a function call comes
 * whole in one part. Gemini sends no end marker: the stream is complete once a chunk carried a
 * `finishReason` and usage arrived, or when the body ends after the `finishReason`. A body that
 * ends before any `finishReason` was cut.
 */
export function decodeGeminiStream(): StreamDecoder {
  return new GeminiStreamDecoder();
}

class GeminiStreamDecoder implements StreamDecoder {
  private started = false;
  private closed = false;
  private reasoningOpen = false;
  private calls = 0;
  private finish: IrFinishReason | null = null;
  private usage: IrUsage | null = null;

  push(event: SseEvent): IrStreamPart[] {
    if (this.closed) return [];
    const raw = parseJsonObject(event.data);
    if (!raw) return [];
    if (isRecord(raw.error)) {
      this.closed = true;
      const e = raw.error;
      return [
        {
          type: "error",
          error: {
            type: "api_error",
            code: String(e.status ?? e.code ?? "upstream_error"),
            message: String(e.message ?? "upstream stream error"),
          },
        },
      ];
    }
    const parsed = geminiResponseSchema.safeParse(unwrapCodeAssist(raw));
    if (!parsed.success) return [];
    const chunk = parsed.data;
    const out: IrStreamPart[] = [];
    if (!this.started) {
      this.started = true;
      const start: IrStreamPart = { type: "start" };
      if (chunk.responseId !== undefined) start.id = chunk.responseId;
      if (chunk.modelVersion !== undefined) start.model = chunk.modelVersion;
      out.push(start);
    }
    const usage = usageFromGemini(chunk.usageMetadata);
    if (usage) this.usage = usage;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        this.endReasoning(out);
        const callIndex = this.calls++;
        out.push({
          type: "tool-call-start",
          callIndex,
          id: part.functionCall.id ?? `call_planfirst_${callIndex}`,
          name: part.functionCall.name,
          kind: "function",
        });
        out.push({
          type: "tool-call-delta",
          callIndex,
          delta: JSON.stringify(part.functionCall.args ?? {}),
        });
        out.push({ type: "tool-call-end", callIndex });
        continue;
      }
      if (typeof part.text !== "string" || part.text === "") continue;
      if (part.thought) {
        this.reasoningOpen = true;
        out.push({ type: "reasoning-delta", text: part.text });
      } else {
        this.endReasoning(out);
        out.push({ type: "text-delta", text: part.text });
      }
    }
    if (candidate?.finishReason !== undefined) {
      this.finish = finishFromGemini(candidate.finishReason, this.calls > 0);
    } else if (!candidate && chunk.promptFeedback?.blockReason !== undefined) {
      this.finish = "content_filter";
    }
    if (this.finish !== null && usage !== null) return this.complete(out);
    return out;
  }

  end(): IrStreamPart[] {
    if (this.closed) return [];
    // The finish reason came and the body ended: complete, whether or not usage followed.
    if (this.finish !== null) return this.complete([]);
    this.closed = true;
    return [{ type: "error", error: streamCutError() }];
  }

  private endReasoning(out: IrStreamPart[]): void {
    if (!this.reasoningOpen) return;
    this.reasoningOpen = false;
    out.push({ type: "reasoning-end" });
  }

  private complete(out: IrStreamPart[]): IrStreamPart[] {
    this.closed = true;
    if (!this.started) out.unshift({ type: "start" });
    this.endReasoning(out);
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    out.push({ type: "finish", reason: this.finish ?? "stop" });
    return out;
  }
}
