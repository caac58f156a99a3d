import {
  type ClientStream,
  type EncodeRequestOptions,
  type EncodeResponseOptions,
  streamUsage,
} from "./codec";
import type { ConversationOpening } from "./conversation-opening";
import type { IrRequest, IrResponse, IrStreamError, IrStreamPart, IrUsage } from "./ir";
import { createCustomCallRestorer, customToolNames, restoreCustomCalls } from "./ir/custom-tool";
import { codecFor, type ProtocolName } from "./registry";
import { formatSseEvents } from "./sse/sse-format";
import { createSseParser } from "./sse/sse-parser";

type Json = Record<string, unknown>;

/** A request translated for an upstream: its body, the client fields dropped, and the hub request. */
interface TranslatedRequest {
  body: Json;
  /** Client fields dropped on the way, for `x-planfirst-dropped`; [] when nothing was. */
  dropped: string[];
  /** The decoded client request, to hand to {@link translateResponse} and {@link createStreamTranslator}. */
  request: IrRequest;
}

/**
 * The upstream body for a client body in another protocol: decode with the client's codec,
 * encode with the upstream's, through the hub's one representation. Throws `ProtocolError`
 * naming the field for a body it cannot read or a field the upstream cannot honour (the
 * dispatcher skips that target and records why). When the protocols are the same, the client
 * codec's `passThroughRequest` makes the body (see `legOf`).
 */
export function translateRequest(
  from: ProtocolName,
  to: ProtocolName,
  body: unknown,
  options: EncodeRequestOptions,
): TranslatedRequest {
  if (from === to) throw new Error(`translateRequest: ${from} to itself is a pass-through`);
  const request = codecFor(from).decodeRequest(body);
  const encoded = codecFor(to).encodeRequest(request, options);
  return { body: encoded.body, dropped: encoded.dropped, request };
}

/**
 * The opening of the conversation a client body of `protocol` belongs to (see
 * `ClientWire.conversationOpening`); null when the protocol reads none or the body has no user
 * message.
 */
export function conversationOpeningOf(
  protocol: ProtocolName,
  body: Readonly<Json>,
  maxChars: number,
): ConversationOpening | null {
  return codecFor(protocol).client?.conversationOpening(body, maxChars) ?? null;
}

/** A non-stream answer translated for the client, with the usage the upstream reported. */
export interface TranslatedResponse {
  body: Json;
  dropped: string[];
  usage: IrUsage | null;
}

/**
 * The client body for a non-stream upstream answer in another protocol. Pass the decoded
 * `request` in `options` so custom tool calls that travelled as functions come back as custom
 * calls and echoed settings are right. Throws `ProtocolError` for a body that is not an answer of
 * `from`.
 */
export function translateResponse(
  from: ProtocolName,
  to: ProtocolName,
  body: unknown,
  options: EncodeResponseOptions,
): TranslatedResponse {
  return encodeAnswer(from, to, codecFor(from).decodeResponse(body), options);
}

/**
 * The client body of protocol `to` for a whole hub answer from an upstream of protocol `from`,
 * decoded from its body or collected from its stream (`createStreamCollector`). Pass the decoded
 * `request` in `options` so custom tool calls that travelled as functions come back as custom
 * calls and echoed settings are right.
 */
export function encodeAnswer(
  from: ProtocolName,
  to: ProtocolName,
  answer: IrResponse,
  options: EncodeResponseOptions,
): TranslatedResponse {
  const response = codecFor(from).freeformTools
    ? answer
    : restoreCustomCalls(answer, customToolNames(options.request?.tools));
  const encoded = codecFor(to).encodeResponse(response, options);
  return { body: encoded.body, dropped: encoded.dropped, usage: response.usage };
}

/**
 * A client stream for an upstream stream in another protocol: SSE parser, the upstream codec's
 * stream decoder, the client codec's stream encoder. The client stream ends cleanly only after
 * the upstream completed; an upstream error or cut ends it with the client protocol's error
 * frames. Use `createFrameRelay` when the protocols are the same.
 */
export function createStreamTranslator(
  from: ProtocolName,
  to: ProtocolName,
  options: EncodeResponseOptions,
): ClientStream {
  return new StreamTranslator(from, to, options);
}

class StreamTranslator implements ClientStream {
  private readonly parser = createSseParser();
  private readonly decoder;
  private readonly encoder;
  private readonly restore: (part: IrStreamPart) => IrStreamPart[];
  private lastUsage: IrUsage | null = null;
  private done = false;
  private error: IrStreamError | null = null;

  constructor(from: ProtocolName, to: ProtocolName, options: EncodeResponseOptions) {
    this.decoder = codecFor(from).decodeStream();
    this.encoder = codecFor(to).encodeStream(options);
    const names = codecFor(from).freeformTools
      ? new Set<string>()
      : customToolNames(options.request?.tools);
    this.restore = createCustomCallRestorer(names);
  }

  push(chunk: Uint8Array | string): string {
    let out = "";
    for (const event of this.parser.push(chunk)) out += this.emit(this.decoder.push(event));
    return out;
  }

  flush(): string {
    let out = "";
    for (const event of this.parser.flush()) out += this.emit(this.decoder.push(event));
    return out + this.emit(this.decoder.end());
  }

  fail(error: IrStreamError): string {
    const text = formatSseEvents(this.encoder.fail(error));
    if (text !== "") this.error ??= error;
    return text;
  }

  usage(): IrUsage | null {
    return streamUsage(this.lastUsage, this.done, this.decoder);
  }

  finished(): boolean {
    return this.done;
  }

  upstreamError(): IrStreamError | null {
    return this.error;
  }

  private emit(parts: IrStreamPart[]): string {
    let out = "";
    for (const raw of parts) {
      for (const part of this.restore(raw)) {
        if (part.type === "usage") this.lastUsage = part.usage;
        else if (part.type === "finish") this.done = true;
        else if (part.type === "error") this.error ??= part.error;
        out += formatSseEvents(this.encoder.push(part));
      }
    }
    return out;
  }
}
