/**
 * The wire protocols a fake upstream can speak: OpenAI chat completions, Anthropic messages and
 * the OpenAI Responses API.
 */
export type WireProtocol = "openai" | "anthropic" | "openai-responses";

/** Token counts a scripted reply reports. */
export interface ReplyUsage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens reported as served from cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`). Default 0. */
  cachedInputTokens?: number;
}

/** A streamed reply: content deltas in the request's protocol. */
export interface ReplyStream {
  /** Text deltas, one SSE content frame each. */
  chunks: string[];
  /** Destroy the socket after this many content frames: no finish, no usage, no clean end. */
  cutAfter?: number;
  /** Pause between content frames, milliseconds. Default 0. */
  chunkDelayMs?: number;
  /**
   * Pause after the response headers are sent and before the first frame, milliseconds (headers
   * are flushed first, so the client sees a 200 with no body yet). Default 0.
   */
  firstFrameDelayMs?: number;
  /**
   * The response headers and the opening frame (OpenAI's role chunk, Anthropic's
   * `message_start`) go out at once; the content frames wait until this promise settles. A
   * stream held open and silent for as long as a test needs, with no timer.
   */
  holdUntil?: Promise<unknown>;
  /** Usage reported at the end of the stream (overrides `Reply.usage`). */
  usage?: ReplyUsage;
  /**
   * Write each content frame in two socket writes with a short pause between them, cut inside the
   * echoed credential when the frame carries one (see `ECHO_CREDENTIAL`), else at its middle: the
   * reader gets the frame, and the secret in it, in two chunks. Default false.
   */
  splitFrames?: boolean;
}

/**
 * One scripted answer. Precedence: `body` (JSON) › `text` (raw) › `stream` › the default
 * completion ("ok") in the request's protocol and stream mode.
 */
export interface Reply {
  /** HTTP status; default 200. */
  status?: number;
  /** Extra response headers (quota headers from the builders, say). */
  headers?: Record<string, string>;
  /** JSON body, sent as is. */
  body?: unknown;
  /** Raw body text (content-type text/plain unless `headers` sets one). */
  text?: string;
  stream?: ReplyStream;
  /** Wait before sending the status line, milliseconds. */
  delayMs?: number;
  /** Usage the default completion or stream reports; default 12 input tokens, one output token per chunk. */
  usage?: ReplyUsage;
}

/** Which credential a request carried: the header and a short label (never the full secret). */
export interface HitAuth {
  /** `authorization`, `x-api-key`, or null when the request carried no credential. */
  header: "authorization" | "x-api-key" | null;
  /** The authorization scheme (`Bearer`, `token`), null for `x-api-key`. */
  scheme: string | null;
  /** `credentialLabel(credential)`, so tests can attribute hits to connections. */
  label: string | null;
}

/** One request the fake upstream received, recorded before it answered. */
export interface Hit {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The query string, without the `?` ("" when there is none). */
  query: string;
  /** `completion` for chat/messages requests, `usage` for usage endpoints, else `other`. */
  kind: "completion" | "usage" | "other";
  /** Protocol of a completion request (from its path), else null. */
  protocol: WireProtocol | null;
  /** `model` of the JSON body, null when absent. */
  model: string | null;
  /** `stream` of the JSON body. */
  stream: boolean;
  auth: HitAuth;
  /** Request headers, lower-case, with `authorization`, `x-api-key` and `cookie` removed. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when the body was empty or not JSON). */
  body: unknown;
  /** Client port of the TCP connection: equal ports on sequential hits mean a reused keep-alive socket. */
  remotePort: number;
  /** Arrival time, epoch milliseconds. */
  at: number;
}

/** What a script handler sees of a request. */
export type FakeRequest = Hit;

/** A script: a function deciding each reply, or a list consumed in order (then the default). */
export type Script = ((request: FakeRequest) => Reply | Promise<Reply>) | Reply[];

/** Usage endpoints served for the gateway's pollers. */
export type UsageEndpoint = "claude" | "codex" | "copilot" | "openrouter";

/** A running fake upstream on 127.0.0.1. */
export interface FakeUpstream {
  /**
   * Base URL for connection config: `http://127.0.0.1:PORT/v1` for `openai` and `both`, the bare
   * origin for `anthropic`.
   */
  url: string;
  /** Bare origin `http://127.0.0.1:PORT`. */
  origin: string;
  name: string;
  /** Every request received, in arrival order (live array). */
  hits: Hit[];
  /** Completion hits only. */
  completionHits(): Hit[];
  /** Replaces the completion script. */
  script(script: Script): void;
  /**
   * Scripts the JSON a usage endpoint returns (404 while unscripted). `endpoint` omitted = all
   * four endpoints.
   */
  usage(
    payload: unknown,
    options?: { endpoint?: UsageEndpoint; status?: number; headers?: Record<string, string> },
  ): void;
  /**
   * Serves `POST …/messages/count_tokens` (Anthropic protocol) with `{"input_tokens": N}`; null
   * (the default) answers it 404, as Anthropic-compatible servers without the endpoint do.
   */
  countTokens(inputTokens: number | null): void;
  /** Clears hits, script, usage payloads and the count_tokens answer. */
  reset(): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}
