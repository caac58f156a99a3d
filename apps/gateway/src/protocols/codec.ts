import type { WorstCaseCostInput } from "@planfirst/spend-ledger";
import type { BodyRules } from "./body-rules";
import type { ConversationOpening } from "./conversation-opening";
import type { IrRequest, IrResponse, IrStreamError, IrStreamPart, IrUsage } from "./ir";
import type { SseEvent } from "./types";

/** An encoded body and the source fields dropped on the way (JSON paths, for `x-planfirst-dropped`). */
export interface Encoded<T> {
  body: T;
  dropped: string[];
}

/** Options of {@link Codec.encodeRequest}. */
export interface EncodeRequestOptions {
  /** The concrete upstream model id that replaces the client's (possibly `auto/...`) model. */
  model: string;
  /** Whether the upstream is asked to stream. */
  stream: boolean;
  /**
   * A prompt cache key to send, for a protocol that has the field ({@link Codec.promptCacheKeyField}),
   * when the body carries none of its own; ignored by protocols without one.
   */
  promptCacheKey?: string;
  /** What the upstream requires of every body; applied by the leg after the body is built. */
  bodyRules?: BodyRules;
}

/** Options of {@link Codec.encodeResponse} and {@link Codec.encodeStream}. */
export interface EncodeResponseOptions {
  /** The concrete model that served the request, shown to the client. */
  model: string;
  /** Clock for `created` fields, epoch milliseconds. Injected: codecs never read the clock. */
  nowMs: number;
  /**
   * The decoded client request, when known: lets an encoder give back what the client asked for
   * (tool kinds, whether chat usage chunks were asked for).
   */
  request?: IrRequest;
}

/** Turns upstream SSE events into hub stream parts. */
export interface StreamDecoder {
  /** The parts one upstream event carries, in order ([] for pings and framing). */
  push(event: SseEvent): IrStreamPart[];
  /**
   * The upstream body ended: [] when the stream completed, else one `error` part (the upstream
   * was cut). Never a silent end.
   */
  end(): IrStreamPart[];
  /**
   * Usage the stream has reported before its final count (an Anthropic stream counts its prompt
   * in `message_start`); null when it has reported none. Absent when the protocol reports usage
   * only at the end.
   */
  reported?(): IrUsage | null;
}

/**
 * A stream's usage for the books (rule B8): its final count; before the stream finished, what
 * `decoder` has reported so far; null when there is neither.
 */
export function streamUsage(
  final: IrUsage | null,
  finished: boolean,
  decoder: StreamDecoder,
): IrUsage | null {
  if (final !== null || finished) return final;
  return decoder.reported?.() ?? null;
}

/** Turns hub stream parts into client SSE events. */
export interface StreamEncoder {
  /** The client events for one part. After a `finish` or `error` part, returns []. */
  push(part: IrStreamPart): SseEvent[];
  /** The protocol's explicit error frames ending the stream now ([] once it has ended). */
  fail(error: IrStreamError): SseEvent[];
}

/**
 * The same-protocol relay's view of a protocol: which frames it must read (usage, finish,
 * errors, the end) and what ends a stream. All other frames are copied byte for byte.
 */
interface RelayProfile {
  /** True when the frame may carry usage, a finish, an error or the end and must be decoded. */
  tracks(event: string | undefined, data: string): boolean;
  /** True for the protocol's terminal frame (chat `[DONE]`, Anthropic `message_stop`, Responses `response.completed`). */
  isTerminal(event: string | undefined, data: string): boolean;
  /** Frames the client still needs after a completed stream whose terminal frame never came. */
  terminator: SseEvent[];
  /** The protocol's explicit error frames for a stream already under way. */
  errorFrames(error: IrStreamError): SseEvent[];
}

/** Fields of an error answer to a client, shaped by {@link ClientWire.errorBody}. */
export interface ErrorFields {
  message: string;
  /** Error type: `invalid_request_error`, `rate_limit_error`, `api_error`, … */
  type: string;
  /** Stable code, e.g. `plan_quota_exhausted`, `model_not_found`. */
  code: string;
  /** Extra JSON-safe fields (reasons, attempts, …). */
  details?: Record<string, unknown>;
}

/**
 * What a wire carries of a client's request line to any upstream that speaks it, whichever
 * protocol the client spoke and whichever connector sends the call. Client headers are each
 * connector's to forward (`forwardedClientHeaders`), not the wire's.
 */
export interface WireForwarding {
  /** Query parameters sent on, each exactly `name=value`; no other query reaches an upstream. */
  readonly query: readonly string[];
}

/**
 * How the gateway serves clients of a protocol, beyond translating: their error shape, the edge
 * check of their bodies, the same-protocol pass-through and what the spend ledger reads.
 */
export interface ClientWire {
  /** An error answer in this protocol's shape (OpenAI `{ error: {...} }`, Anthropic `{ type: "error", error: {...} }`). */
  errorBody(fields: ErrorFields): Record<string, unknown>;
  /**
   * Checks a client body at the edge, before anything reads it: the protocol's wire schema and
   * message roles. Throws `ProtocolError` (`invalid_field`) or `GatewayError`
   * (`invalid_request`), answered 400, naming the offending path.
   */
  validateRequest(body: Record<string, unknown>): void;
  /**
   * The upstream body for a client body sent to an upstream of this same protocol: a shallow
   * copy with `model` replaced and `stream` set, every other field as the client sent it, plus
   * what the gateway must ask for on the client's behalf (chat streams: usage).
   */
  passThroughRequest(
    body: Record<string, unknown>,
    options: EncodeRequestOptions,
  ): Record<string, unknown>;
  /**
   * Frames of a relayed stream that this client body did not ask for but
   * {@link passThroughRequest} did (the chat usage-only chunk when the client did not set
   * `stream_options.include_usage`): a test of a frame the relay profile tracks, or null when
   * the client sees every frame.
   */
  hiddenFrames(body: Record<string, unknown>): ((data: string) => boolean) | null;
  /**
   * How the spend ledger's worst-case scan reads this protocol's client bodies (`scanWorstCase`'s
   * `protocol`: which fields cap the output, whether `n` multiplies it).
   */
  readonly costScan: WorstCaseCostInput["protocol"];
  /**
   * The opening of the conversation a client body belongs to (system prompt, first user message,
   * each cut to `maxChars`, and whether the body is a later turn), for the session key's
   * fallback; null when the body holds no user message.
   */
  conversationOpening(
    body: Readonly<Record<string, unknown>>,
    maxChars: number,
  ): ConversationOpening | null;
  /**
   * The SSE text that keeps a client stream of this protocol open while its answer has not
   * started (a request held for a plan): the protocol's own ping event where it has one, else an
   * SSE comment, which every SSE reader skips. Valid before the first event and between any two.
   */
  readonly keepAlive: string;
}

/**
 * One wire protocol, both ways, and what differs per protocol around it. Codecs are pure: they
 * know no provider, no connector and no HTTP; they throw `ProtocolError` for a body they cannot
 * read or a field the target cannot honour. `Name` is the protocol's one name in the gateway
 * (its key in `protocols/registry.ts`), `ConfigName` the name a connection's `protocol` has in
 * the config file.
 */
export interface Codec<Name extends string = string, ConfigName extends string = string> {
  readonly protocol: Name;
  /** The public config value naming this protocol (`connections[].protocol`): `openai` for chat completions. */
  readonly configName: ConfigName;
  /** Reads a client body of this protocol. Unknown fields are refused or dropped per the degrade policy. */
  decodeRequest(body: unknown): IrRequest;
  /** Writes the upstream body of this protocol for a request that came in another protocol. */
  encodeRequest(
    request: IrRequest,
    options: EncodeRequestOptions,
  ): Encoded<Record<string, unknown>>;
  /** Reads a non-stream upstream body of this protocol. */
  decodeResponse(body: unknown): IrResponse;
  /** Writes the client body of this protocol for an answer from another protocol. */
  encodeResponse(
    response: IrResponse,
    options: EncodeResponseOptions,
  ): Encoded<Record<string, unknown>>;
  /** A decoder for one upstream stream of this protocol. */
  decodeStream(): StreamDecoder;
  /** An encoder for one client stream of this protocol. */
  encodeStream(options: EncodeResponseOptions): StreamEncoder;
  /** How the same-protocol relay reads this protocol's streams. */
  readonly relay: RelayProfile;
  /**
   * The usage of a whole answer body of this protocol, read without decoding the rest (a
   * same-protocol answer is passed on as it came); null when it reports none.
   */
  responseUsage(body: Record<string, unknown>): IrUsage | null;
  /**
   * True when the protocol has freeform (custom) tools of its own, so custom tool calls in its
   * answers need no restoring from the wrapped function calls other protocols carry them as.
   */
  readonly freeformTools: boolean;
  /** What an upstream speaking this protocol receives of the client's request; null for nothing. */
  readonly forwarding: WireForwarding | null;
  /** How clients speaking this protocol are served; null when it is spoken to upstreams only. */
  readonly client: ClientWire | null;
  /** The top-level body field that names a prompt cache (`prompt_cache_key`); absent when none. */
  readonly promptCacheKeyField?: string;
}

/**
 * One upstream SSE body turned into client SSE text, chunk by chunk; the same shape whether it
 * is relayed (same protocol) or translated through the hub. It never ends silently: `flush()`
 * ends the client stream cleanly only when the upstream completed, and otherwise with the client
 * protocol's explicit error frame.
 */
export interface ClientStream {
  /** Client text for the next upstream chunk ("" when it completes nothing). */
  push(chunk: Uint8Array | string): string;
  /** The upstream body ended: the rest of the client text, ending the stream one way or the other. */
  flush(): string;
  /** Ends the client stream now with an explicit error frame (a timeout, say); "" once ended. */
  fail(error: IrStreamError): string;
  /**
   * Usage reported so far: the last cumulative count, or before the end what the stream reported
   * of its prompt (see `streamUsage`); null until the upstream reports any.
   */
  usage(): IrUsage | null;
  /** True once the upstream sent its proper end. */
  finished(): boolean;
  /** The error that ended the stream (reported by the upstream, or a cut); null if none. */
  upstreamError(): IrStreamError | null;
}
