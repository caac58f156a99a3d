import { anthropicMessageId, anthropicToolUseId, openAiCompletionId } from "./ids";
import { isRecord, parseJsonObject } from "./ir/guards";
import { formatSse } from "./sse";
import { anthropicStopReason, openAiFinishReason } from "./stop-reason";
import type { NormalizedUsage, SseEvent, StreamFailure, WireProtocol } from "./types";
import {
  emptyUsage,
  toAnthropicUsage,
  toOpenAiUsage,
  usageFromAnthropic,
  usageFromOpenAi,
} from "./usage";

type Json = Record<string, unknown>;

/** Options of {@link createStreamBridge}. */
export interface StreamBridgeOptions {
  /** The concrete model that serves the stream, shown to the client in synthesised frames. */
  model: string;
  /** Clock for the OpenAI `created` field, epoch milliseconds; defaults to `Date.now()` once. */
  nowMs?: number;
  /**
   * Whether an OpenAI client gets the usage-only chunk (`choices: []`) before `[DONE]`. Default
   * true; set it from the client's `stream_options.include_usage` to match OpenAI exactly.
   */
  includeUsage?: boolean;
}

/** An error the upstream reported inside its stream (Anthropic `event: error`, OpenAI `{"error"}`). */
export interface UpstreamStreamError {
  type: string;
  message: string;
}

/**
 * Translates one upstream SSE stream into client SSE text. Feed every parsed upstream event to
 * `push`; when the upstream ends, call `end()` if `finished()` is true, else `fail(...)`.
 */
export interface StreamBridge {
  /** Client SSE text for one upstream event; "" when the event produces nothing. */
  push(event: SseEvent): string;
  /**
   * True when `push` of this event would return it exactly as `formatSse` writes it and change
   * nothing else, so a relay may copy the upstream's text instead. Only same-protocol bridges
   * ever say true, and only for frames that carry no usage, end, finish or error.
   */
  forwardsUnchanged(event: string | undefined, data: string): boolean;
  /** The client's clean terminal frames still missing (OpenAI `data: [DONE]`); "" when already sent. */
  end(): string;
  /**
   * The explicit error frame that ends the stream: OpenAI clients get a final
   * `data: {"error":{"message","type","code"}}` (no `[DONE]`), Anthropic clients an `event: error`.
   */
  fail(error: StreamFailure): string;
  /** Usage reported so far, normalised; null until the upstream reports any. */
  usage(): NormalizedUsage | null;
  /** True once the upstream sent its proper end (OpenAI `[DONE]` or finish_reason + usage; Anthropic `message_stop`). */
  finished(): boolean;
  /** The error event the upstream sent inside the stream, if any (it is not forwarded). */
  upstreamError(): UpstreamStreamError | null;
}

function anthropicFrame(event: string, payload: Json): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

function dataFrame(payload: Json): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function failFrame(clientProtocol: WireProtocol, error: StreamFailure): string {
  if (clientProtocol === "openai") {
    return dataFrame({ error: { message: error.message, type: error.type, code: error.code } });
  }
  return anthropicFrame("error", {
    type: "error",
    error: { type: error.type, message: error.message },
  });
}

function streamErrorOf(payload: Json | null): UpstreamStreamError | null {
  if (!payload || !isRecord(payload.error)) return null;
  return {
    type: String(payload.error.type ?? payload.error.code ?? "api_error"),
    message: String(payload.error.message ?? "upstream stream error"),
  };
}

/** Keeps Anthropic usage, whose `message_delta` counts are cumulative and overwrite earlier ones. */
function mergeAnthropicUsage(into: Json, usage: unknown): void {
  if (!isRecord(usage)) return;
  for (const key of [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
  ]) {
    const value = usage[key];
    if (typeof value === "number") into[key] = value;
  }
}

const FINISH_REASON_SET = /"finish_reason":\s*"/;
const USAGE_SET = /"usage":\s*\{/;

/**
 * Creates the bridge from an upstream stream in `upstreamProtocol` to a client speaking
 * `clientProtocol`. Same protocol: frames pass through unchanged while usage and the proper end
 * are tracked. Across protocols: text deltas, tool-call deltas (OpenAI
 * `tool_calls[].function.arguments` ↔ Anthropic `input_json_delta`), message and content-block
 * framing, usage, stop reasons and pings are translated.
 */
export function createStreamBridge(
  upstreamProtocol: WireProtocol,
  clientProtocol: WireProtocol,
  options: StreamBridgeOptions,
): StreamBridge {
  // The same-protocol bridges sit on every pass-through stream: plain objects, no closures.
  if (upstreamProtocol === "openai" && clientProtocol === "openai")
    return new OpenAiPassThrough(options.includeUsage !== false);
  if (upstreamProtocol === "anthropic" && clientProtocol === "anthropic")
    return new AnthropicPassThrough();
  const state = {
    finished: false,
    closed: false,
    upstreamError: null as UpstreamStreamError | null,
  };
  const failure = (error: StreamFailure): string => {
    if (state.closed) return "";
    state.closed = true;
    return failFrame(clientProtocol, error);
  };
  const common = {
    forwardsUnchanged: never,
    fail: failure,
    finished: () => state.finished,
    upstreamError: () => state.upstreamError,
  };
  if (upstreamProtocol === "openai") return openAiToAnthropicStream(state, common, options);
  return anthropicToOpenAiStream(state, common, options);
}

interface BridgeState {
  finished: boolean;
  closed: boolean;
  upstreamError: UpstreamStreamError | null;
}

type Common = Pick<StreamBridge, "forwardsUnchanged" | "fail" | "finished" | "upstreamError">;

function never(): boolean {
  return false;
}

/** OpenAI chunks that can carry usage, a finish or an error: the only ones a pass-through parses. */
function openAiChunkNeedsParse(data: string): boolean {
  return USAGE_SET.test(data) || data.includes('"error"') || FINISH_REASON_SET.test(data);
}

/** Anthropic events whose payload the pass-through reads (usage, the end, errors). */
function anthropicEventTracked(type: string | undefined): boolean {
  return (
    type === undefined ||
    type === "message_start" ||
    type === "message_delta" ||
    type === "message_stop" ||
    type === "error"
  );
}

/** State and ending shared by the pass-through bridges. */
abstract class PassThroughBridge implements StreamBridge {
  protected done = false;
  protected closed = false;
  protected streamError: UpstreamStreamError | null = null;

  constructor(private readonly clientProtocol: WireProtocol) {}

  abstract push(event: SseEvent): string;
  abstract forwardsUnchanged(event: string | undefined, data: string): boolean;
  abstract end(): string;
  abstract usage(): NormalizedUsage | null;

  fail(error: StreamFailure): string {
    if (this.closed) return "";
    this.closed = true;
    return failFrame(this.clientProtocol, error);
  }

  finished(): boolean {
    return this.done;
  }

  upstreamError(): UpstreamStreamError | null {
    return this.streamError;
  }
}

class OpenAiPassThrough extends PassThroughBridge {
  private seenUsage: NormalizedUsage | null = null;
  private sawFinish = false;

  constructor(private readonly includeUsage: boolean) {
    super("openai");
  }

  forwardsUnchanged(_event: string | undefined, data: string): boolean {
    return !this.closed && data !== "[DONE]" && !openAiChunkNeedsParse(data);
  }

  push(event: SseEvent): string {
    if (this.closed) return "";
    const data = event.data;
    if (data === "[DONE]") {
      this.done = true;
      this.closed = true;
      return "data: [DONE]\n\n";
    }
    // Parse only the chunks that can carry usage, a finish or an error: the hot path stays a copy.
    if (openAiChunkNeedsParse(data)) {
      const chunk = parseJsonObject(data);
      const error = streamErrorOf(chunk);
      if (error && !Array.isArray(chunk?.choices)) {
        this.streamError = error;
        return "";
      }
      if (chunk) {
        const chunkUsage = usageFromOpenAi(chunk.usage);
        if (chunkUsage) this.seenUsage = chunkUsage;
        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        if (choices.some((c) => isRecord(c) && typeof c.finish_reason === "string"))
          this.sawFinish = true;
        if (this.sawFinish && this.seenUsage) this.done = true;
        if (!this.includeUsage && choices.length === 0 && chunkUsage) return "";
      }
    }
    return formatSse(event);
  }

  end(): string {
    if (this.closed) return "";
    this.closed = true;
    return "data: [DONE]\n\n";
  }

  usage(): NormalizedUsage | null {
    return this.seenUsage;
  }
}

class AnthropicPassThrough extends PassThroughBridge {
  private rawUsage: Json | null = null;

  constructor() {
    super("anthropic");
  }

  forwardsUnchanged(event: string | undefined): boolean {
    return !this.closed && !anthropicEventTracked(event);
  }

  push(event: SseEvent): string {
    if (this.closed) return "";
    const type = event.event;
    if (anthropicEventTracked(type)) {
      const payload = parseJsonObject(event.data);
      const kind = type ?? payload?.type;
      if (kind === "error") {
        this.streamError = streamErrorOf(payload) ?? {
          type: "api_error",
          message: "upstream stream error",
        };
        return "";
      }
      if (kind === "message_start" && isRecord(payload?.message)) {
        this.rawUsage = {};
        mergeAnthropicUsage(this.rawUsage, payload.message.usage);
      } else if (kind === "message_delta") {
        this.rawUsage ??= {};
        mergeAnthropicUsage(this.rawUsage, payload?.usage);
      } else if (kind === "message_stop") {
        this.done = true;
        this.closed = true;
      }
    }
    return formatSse(event);
  }

  end(): string {
    if (this.closed) return "";
    this.closed = true;
    return anthropicFrame("message_stop", { type: "message_stop" });
  }

  usage(): NormalizedUsage | null {
    return this.rawUsage ? usageFromAnthropic(this.rawUsage) : null;
  }
}

function openAiToAnthropicStream(
  state: BridgeState,
  common: Common,
  options: StreamBridgeOptions,
): StreamBridge {
  let usage: NormalizedUsage | null = null;
  let started = false;
  let nextBlockIndex = 0;
  let openBlock: number | null = null;
  let openKind: "text" | "tool" | null = null;
  const toolBlocks = new Map<number, number>();
  let stopReason: string | null = null;
  let messageId = anthropicMessageId(undefined);

  function start(upstreamId: unknown): string {
    if (started) return "";
    started = true;
    if (upstreamId !== undefined) messageId = anthropicMessageId(upstreamId);
    return (
      anthropicFrame("message_start", {
        type: "message_start",
        message: {
          id: messageId,
          type: "message",
          role: "assistant",
          model: options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }) + anthropicFrame("ping", { type: "ping" })
    );
  }

  function closeBlock(): string {
    if (openBlock === null) return "";
    const frame = anthropicFrame("content_block_stop", {
      type: "content_block_stop",
      index: openBlock,
    });
    openBlock = null;
    openKind = null;
    return frame;
  }

  function openNewBlock(kind: "text" | "tool", contentBlock: Json): string {
    const frames = closeBlock();
    openBlock = nextBlockIndex++;
    openKind = kind;
    return (
      frames +
      anthropicFrame("content_block_start", {
        type: "content_block_start",
        index: openBlock,
        content_block: contentBlock,
      })
    );
  }

  function finish(): string {
    if (state.closed) return "";
    const frames =
      start(undefined) +
      closeBlock() +
      anthropicFrame("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason ?? "end_turn", stop_sequence: null },
        usage: toAnthropicUsage(usage ?? emptyUsage()),
      }) +
      anthropicFrame("message_stop", { type: "message_stop" });
    state.closed = true;
    state.finished = true;
    return frames;
  }

  return {
    ...common,
    push(event) {
      if (state.closed) return "";
      if (event.data === "[DONE]") return finish();
      const chunk = parseJsonObject(event.data);
      if (!chunk) return "";
      const error = streamErrorOf(chunk);
      if (error && !Array.isArray(chunk.choices)) {
        state.upstreamError = error;
        return "";
      }
      let out = start(chunk.id);
      const chunkUsage = usageFromOpenAi(chunk.usage);
      if (chunkUsage) usage = chunkUsage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (isRecord(choice)) {
        const delta = isRecord(choice.delta) ? choice.delta : {};
        if (typeof delta.content === "string" && delta.content !== "") {
          if (openKind !== "text") out += openNewBlock("text", { type: "text", text: "" });
          out += anthropicFrame("content_block_delta", {
            type: "content_block_delta",
            index: openBlock,
            delta: { type: "text_delta", text: delta.content },
          });
        }
        if (Array.isArray(delta.tool_calls)) {
          for (const call of delta.tool_calls) {
            if (!isRecord(call)) continue;
            const toolIndex = typeof call.index === "number" ? call.index : 0;
            const fn = isRecord(call.function) ? call.function : {};
            let blockIndex = toolBlocks.get(toolIndex);
            if (blockIndex === undefined) {
              out += openNewBlock("tool", {
                type: "tool_use",
                id: anthropicToolUseId(call.id, toolIndex),
                name: fn.name ?? "",
                input: {},
              });
              blockIndex = openBlock as number;
              toolBlocks.set(toolIndex, blockIndex);
            }
            if (typeof fn.arguments === "string" && fn.arguments !== "") {
              out += anthropicFrame("content_block_delta", {
                type: "content_block_delta",
                index: blockIndex,
                delta: { type: "input_json_delta", partial_json: fn.arguments },
              });
            }
          }
        }
        if (typeof choice.finish_reason === "string") {
          stopReason = anthropicStopReason(choice.finish_reason);
          out += closeBlock();
        }
      }
      if (stopReason !== null && usage !== null) out += finish();
      return out;
    },
    end: () => finish(),
    usage: () => usage,
  };
}

function anthropicToOpenAiStream(
  state: BridgeState,
  common: Common,
  options: StreamBridgeOptions,
): StreamBridge {
  let rawUsage: Json | null = null;
  let completionId = openAiCompletionId(undefined);
  const created = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const toolByBlock = new Map<number, number>();
  let nextTool = 0;
  let finishReason: string | null = null;

  function chunk(delta: Json, finish: string | null = null): string {
    return dataFrame({
      id: completionId,
      object: "chat.completion.chunk",
      created,
      model: options.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  }

  const usage = () => (rawUsage ? usageFromAnthropic(rawUsage) : null);

  return {
    ...common,
    push(event) {
      if (state.closed || state.finished) return "";
      const payload = parseJsonObject(event.data);
      const kind = event.event ?? payload?.type;
      switch (kind) {
        case "ping":
          // SSE comment: keeps the connection warm and is ignored by OpenAI clients.
          return ": ping\n\n";
        case "error":
          state.upstreamError = streamErrorOf(payload) ?? {
            type: "api_error",
            message: "upstream stream error",
          };
          return "";
        case "message_start": {
          const message = isRecord(payload?.message) ? payload.message : {};
          completionId = openAiCompletionId(message.id);
          rawUsage = {};
          mergeAnthropicUsage(rawUsage, message.usage);
          return chunk({ role: "assistant", content: "" });
        }
        case "content_block_start": {
          const block = isRecord(payload?.content_block) ? payload.content_block : {};
          const index = typeof payload?.index === "number" ? payload.index : 0;
          if (block.type === "tool_use") {
            const toolIndex = nextTool++;
            toolByBlock.set(index, toolIndex);
            return chunk({
              tool_calls: [
                {
                  index: toolIndex,
                  id: block.id,
                  type: "function",
                  function: { name: block.name, arguments: "" },
                },
              ],
            });
          }
          if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
            return chunk({ content: block.text });
          }
          return "";
        }
        case "content_block_delta": {
          const delta = isRecord(payload?.delta) ? payload.delta : {};
          if (delta.type === "text_delta" && typeof delta.text === "string")
            return chunk({ content: delta.text });
          if (
            delta.type === "input_json_delta" &&
            typeof delta.partial_json === "string" &&
            delta.partial_json !== ""
          ) {
            const toolIndex = toolByBlock.get(
              typeof payload?.index === "number" ? payload.index : -1,
            );
            if (toolIndex === undefined) return "";
            return chunk({
              tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }],
            });
          }
          return "";
        }
        case "message_delta": {
          rawUsage ??= {};
          mergeAnthropicUsage(rawUsage, payload?.usage);
          const delta = isRecord(payload?.delta) ? payload.delta : {};
          if (delta.stop_reason === undefined || delta.stop_reason === null) return "";
          finishReason = openAiFinishReason(delta.stop_reason);
          return chunk({}, finishReason);
        }
        case "message_stop": {
          state.finished = true;
          let out = finishReason === null ? chunk({}, "stop") : "";
          const total = usage();
          if (options.includeUsage !== false && total) {
            out += dataFrame({
              id: completionId,
              object: "chat.completion.chunk",
              created,
              model: options.model,
              choices: [],
              usage: toOpenAiUsage(total),
            });
          }
          return out;
        }
        default:
          return "";
      }
    },
    end() {
      if (state.closed) return "";
      state.closed = true;
      return "data: [DONE]\n\n";
    },
    usage,
  };
}
