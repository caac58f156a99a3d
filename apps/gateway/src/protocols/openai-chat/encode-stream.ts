import type { EncodeResponseOptions, StreamEncoder } from "../codec";
import type { IrStreamError, IrUsage } from "../ir";
import type { Json } from "../ir/guards";
import { type EncodedStreamPart, StreamEncoderBase } from "../sse/stream-encoder-base";
import type { SseEvent } from "../types";
import { chatCompletionId } from "./encode-response";
import { finishToChat } from "./finish-reason";
import { usageToChat } from "./openai-chat-api";

/**
 * An encoder of one chat completions stream for a chat client. Ends with the finish chunk, the
 * usage chunk (`choices: []`, when the client asked for `stream_options.include_usage`, or
 * always when the request is not known) and `data: [DONE]`; an error ends it with
 * `data: {"error":{…}}` and no `[DONE]`, so the client cannot take a cut answer for a whole one.
 */
export function encodeChatStream(options: EncodeResponseOptions): StreamEncoder {
  return new ChatStreamEncoder(options);
}

class ChatStreamEncoder extends StreamEncoderBase {
  private id = chatCompletionId(undefined);
  private readonly created: number;
  private usage: IrUsage | null = null;
  private readonly kinds = new Map<number, "function" | "custom">();
  private readonly includeUsage: boolean;

  constructor(private readonly options: EncodeResponseOptions) {
    super();
    this.created = Math.floor(options.nowMs / 1000);
    this.includeUsage = options.request ? options.request.includeStreamUsage === true : true;
  }

  protected adoptId(id: string): void {
    this.id = chatCompletionId(id);
  }

  protected encode(part: EncodedStreamPart, out: SseEvent[]): void {
    switch (part.type) {
      case "text-delta":
        out.push(this.chunk({ content: part.text }));
        break;
      case "reasoning-delta":
        out.push(this.chunk({ reasoning_content: part.text }));
        break;
      case "tool-call-start":
        this.kinds.set(part.callIndex, part.kind);
        out.push(
          this.chunk({
            tool_calls: [
              part.kind === "custom"
                ? {
                    index: part.callIndex,
                    id: part.id,
                    type: "custom",
                    custom: { name: part.name, input: "" },
                  }
                : {
                    index: part.callIndex,
                    id: part.id,
                    type: "function",
                    function: { name: part.name, arguments: "" },
                  },
            ],
          }),
        );
        break;
      case "tool-call-delta": {
        const custom = this.kinds.get(part.callIndex) === "custom";
        out.push(
          this.chunk({
            tool_calls: [
              custom
                ? { index: part.callIndex, custom: { input: part.delta } }
                : { index: part.callIndex, function: { arguments: part.delta } },
            ],
          }),
        );
        break;
      }
      case "usage":
        this.usage = part.usage;
        break;
      case "finish":
        out.push(this.chunk({}, finishToChat(part.reason)));
        if (this.includeUsage && this.usage) {
          out.push({
            data: JSON.stringify(this.body([], usageToChat(this.usage))),
          });
        }
        out.push({ data: "[DONE]" });
        break;
      default:
        break;
    }
  }

  protected errorFrames(error: IrStreamError): SseEvent[] {
    return chatErrorFrames(error);
  }

  protected writeStart(out: SseEvent[]): void {
    out.push(this.chunk({ role: "assistant", content: "" }));
  }

  /**
   * A chunk's object, written out field by field: spreading shared fields and then adding
   * `choices` cost Node 20 a new hidden class per chunk (AGENTS.md, "Hot paths").
   */
  private body(choices: Json[], usage?: Json): Json {
    const body: Json = {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.options.model,
      choices,
    };
    if (usage !== undefined) body.usage = usage;
    return body;
  }

  private chunk(delta: Json, finish: string | null = null): SseEvent {
    return {
      data: JSON.stringify(this.body([{ index: 0, delta, logprobs: null, finish_reason: finish }])),
    };
  }
}

/** A chat stream's error frame: `data: {"error":{message,type,code}}`, with no `[DONE]` after. */
export function chatErrorFrames(error: IrStreamError): SseEvent[] {
  return [
    {
      data: JSON.stringify({
        error: { message: error.message, type: error.type, code: error.code },
      }),
    },
  ];
}
