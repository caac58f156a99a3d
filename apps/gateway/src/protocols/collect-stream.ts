import { type StreamDecoder, streamUsage } from "./codec";
import {
  type IrFinishReason,
  type IrReasoningPart,
  type IrResponse,
  type IrStreamError,
  type IrStreamPart,
  type IrToolCallPart,
  type IrUsage,
  streamCutError,
} from "./ir";
import { codecFor, type ProtocolName } from "./registry";
import { createSseParser, type SseParser } from "./sse/sse-parser";

/**
 * A stream folded into one whole answer, or why it holds none: the error the upstream reported,
 * or a cut (`upstream_stream_cut`) when it ended before its finish. A stream that did not finish
 * never yields a truncated answer.
 */
export type CollectedAnswer =
  | { readonly ok: true; readonly response: IrResponse }
  | { readonly ok: false; readonly error: IrStreamError };

/**
 * Folds the hub parts of one stream, in order, into one whole answer: text deltas join one text
 * part until another part comes between; reasoning deltas join one reasoning part that its
 * `reasoning-end` closes with the signature, encrypted content, redacted data or item id it
 * carries (a `reasoning-end` with no delta before it is a reasoning part of its own, such as
 * Anthropic's redacted thinking); tool calls of both kinds keep their id, name and argument
 * text, in the order they started; the finish part gives the finish reason and stop sequence,
 * the last `usage` part the usage (usage parts are cumulative), the `start` part the id and
 * model. Parts after a finish or an error are ignored.
 */
export function foldStreamParts(parts: Iterable<IrStreamPart>): CollectedAnswer {
  const fold = new AnswerFold();
  for (const part of parts) fold.push(part);
  return fold.result();
}

/** Reads one upstream stream's body into a whole answer; see {@link createStreamCollector}. */
interface StreamCollector {
  /** Reads the next chunk of the upstream body (any chunk boundary). */
  push(chunk: Uint8Array | string): void;
  /** True once the stream reported an error: no answer can follow, the rest need not be read. */
  failed(): boolean;
  /** True once the stream finished: the answer is whole whatever becomes of the body's rest. */
  finished(): boolean;
  /** The body ended, or no more of it will be read: the whole answer, or why there is none. */
  end(): CollectedAnswer;
  /** The last usage the stream reported so far; null when it reported none. */
  usage(): IrUsage | null;
}

/**
 * A collector of one upstream stream of protocol `from` (SSE parser, the codec's stream decoder,
 * {@link foldStreamParts}), for a client that asked for a whole answer from an upstream that
 * only streams. The body is read as SSE whatever its `Content-Type` said. Pass the result to
 * `encodeAnswer` for the client's protocol.
 */
export function createStreamCollector(from: ProtocolName): StreamCollector {
  return new Collector(codecFor(from).decodeStream());
}

class Collector implements StreamCollector {
  private readonly parser: SseParser = createSseParser();
  private readonly fold = new AnswerFold();

  constructor(private readonly decoder: StreamDecoder) {}

  push(chunk: Uint8Array | string): void {
    for (const event of this.parser.push(chunk)) this.fold.pushAll(this.decoder.push(event));
  }

  failed(): boolean {
    return this.fold.error !== null;
  }

  finished(): boolean {
    return this.fold.finish !== null;
  }

  end(): CollectedAnswer {
    for (const event of this.parser.flush()) this.fold.pushAll(this.decoder.push(event));
    this.fold.pushAll(this.decoder.end());
    return this.fold.result();
  }

  usage(): IrUsage | null {
    return streamUsage(this.fold.usage, this.fold.finish !== null, this.decoder);
  }
}

class AnswerFold {
  private readonly content: IrResponse["content"] = [];
  /** The reasoning part its deltas still go to, until its `reasoning-end`. */
  private reasoning: IrReasoningPart | null = null;
  private readonly calls = new Map<number, IrToolCallPart>();
  private id: string | undefined;
  private model: string | undefined;
  usage: IrUsage | null = null;
  finish: { reason: IrFinishReason; stopSequence?: string } | null = null;
  error: IrStreamError | null = null;

  pushAll(parts: readonly IrStreamPart[]): void {
    for (const part of parts) this.push(part);
  }

  push(part: IrStreamPart): void {
    if (this.finish !== null || this.error !== null) return;
    switch (part.type) {
      case "start":
        this.id ??= part.id;
        this.model ??= part.model;
        return;
      case "text-delta": {
        const last = this.content.at(-1);
        if (last?.type === "text") last.text += part.text;
        else this.content.push({ type: "text", text: part.text });
        return;
      }
      case "reasoning-delta":
        if (this.reasoning) this.reasoning.text += part.text;
        else {
          this.reasoning = { type: "reasoning", text: part.text };
          this.content.push(this.reasoning);
        }
        return;
      case "reasoning-end": {
        const reasoning = this.reasoning ?? { type: "reasoning", text: "" };
        if (!this.reasoning) this.content.push(reasoning);
        this.reasoning = null;
        if (part.signature !== undefined) reasoning.signature = part.signature;
        if (part.encryptedContent !== undefined) reasoning.encryptedContent = part.encryptedContent;
        if (part.redactedData !== undefined) reasoning.redactedData = part.redactedData;
        if (part.id !== undefined) reasoning.id = part.id;
        return;
      }
      case "tool-call-start": {
        const call: IrToolCallPart = {
          type: "tool_call",
          id: part.id,
          name: part.name,
          arguments: "",
          kind: part.kind,
        };
        if (part.itemId !== undefined) call.itemId = part.itemId;
        this.calls.set(part.callIndex, call);
        this.content.push(call);
        return;
      }
      case "tool-call-delta": {
        const call = this.calls.get(part.callIndex);
        if (call) call.arguments += part.delta;
        return;
      }
      case "tool-call-end":
        return;
      case "usage":
        this.usage = part.usage;
        return;
      case "finish":
        this.finish =
          part.stopSequence === undefined
            ? { reason: part.reason }
            : { reason: part.reason, stopSequence: part.stopSequence };
        return;
      case "error":
        this.error = part.error;
        return;
    }
  }

  result(): CollectedAnswer {
    if (this.error !== null) return { ok: false, error: this.error };
    if (this.finish === null) return { ok: false, error: streamCutError() };
    const response: IrResponse = {
      content: this.content,
      finishReason: this.finish.reason,
      usage: this.usage,
    };
    if (this.id !== undefined) response.id = this.id;
    if (this.model !== undefined) response.model = this.model;
    if (this.finish.stopSequence !== undefined) response.stopSequence = this.finish.stopSequence;
    return { ok: true, response };
  }
}
