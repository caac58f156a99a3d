import { anthropicMessageId, openAiCompletionId } from "./ids";
import { responsesBody, responsesStreamFrames } from "./responses-api";
import type { ReplyUsage, WireProtocol } from "./types";

const SYSTEM_FINGERPRINT = "fp_planfirst";

function cached(usage: ReplyUsage): number {
  return usage.cachedInputTokens ?? 0;
}

/** A non-stream completion body with `content` as the answer text, in `protocol`'s shape. */
export function completionBody(
  protocol: WireProtocol,
  model: string,
  content: string,
  usage: ReplyUsage,
): Record<string, unknown> {
  if (protocol === "openai-responses") return responsesBody(model, content, usage);
  if (protocol === "openai") {
    return {
      id: openAiCompletionId(),
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
        prompt_tokens_details: { cached_tokens: cached(usage), audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
      service_tier: "default",
      system_fingerprint: SYSTEM_FINGERPRINT,
    };
  }
  return {
    id: anthropicMessageId(),
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: content }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens - cached(usage),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached(usage),
      output_tokens: usage.outputTokens,
    },
  };
}

/** SSE frames of a streamed completion, split so a cut can fall after any content frame. */
export interface StreamFrames {
  /** Frames before the first content delta. */
  head: string[];
  /** One frame per content chunk. */
  content: string[];
  /** Frames after the content: finish, usage and the terminal frame. */
  tail: string[];
}

function sse(event: string, payload: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

function data(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/**
 * The frames of a streamed completion in `protocol`'s real event sequence. OpenAI: role chunk,
 * content chunks, finish chunk, the usage chunk only when `includeUsage`, `[DONE]`. Anthropic:
 * message_start, content_block_start, ping, text deltas, content_block_stop, message_delta,
 * message_stop. Responses: see `responsesStreamFrames`.
 */
export function streamFrames(
  protocol: WireProtocol,
  model: string,
  chunks: readonly string[],
  usage: ReplyUsage,
  includeUsage: boolean,
): StreamFrames {
  if (protocol === "openai-responses") return responsesStreamFrames(model, chunks, usage);
  if (protocol === "openai") {
    const id = openAiCompletionId();
    const created = Math.floor(Date.now() / 1000);
    const frame = (fields: Record<string, unknown>) =>
      data({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        service_tier: "default",
        system_fingerprint: SYSTEM_FINGERPRINT,
        ...fields,
      });
    const chunk = (delta: unknown, finish: string | null) =>
      frame({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    const tail = [chunk({}, "stop")];
    if (includeUsage) {
      tail.push(
        frame({
          choices: [],
          usage: {
            prompt_tokens: usage.inputTokens,
            completion_tokens: usage.outputTokens,
            total_tokens: usage.inputTokens + usage.outputTokens,
            prompt_tokens_details: { cached_tokens: cached(usage), audio_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
          },
        }),
      );
    }
    tail.push("data: [DONE]\n\n");
    return {
      head: [chunk({ role: "assistant", content: "", refusal: null }, null)],
      content: chunks.map((text) => chunk({ content: text }, null)),
      tail,
    };
  }
  return {
    head: [
      sse("message_start", {
        type: "message_start",
        message: {
          id: anthropicMessageId(),
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.inputTokens - cached(usage),
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: cached(usage),
            output_tokens: 1,
          },
        },
      }),
      sse("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      }),
      sse("ping", { type: "ping" }),
    ],
    content: chunks.map((text) =>
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text },
      }),
    ),
    tail: [
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.outputTokens },
      }),
      sse("message_stop", { type: "message_stop" }),
    ],
  };
}
