// The upstream client's contract; its implementation is `createUpstreamClient`
// (upstream-client.ts).

/**
 * What an abort signal calls: a function, or an object whose `handleEvent()` it calls (as
 * `EventTarget` does), which lets a per-request object listen without a closure of its own.
 */
export type AbortListener = (() => void) | { handleEvent(): void };

/**
 * The part of `AbortSignal` the client reads; an `AbortSignal` is one. Lets a server hand in a
 * cheaper "client went away" flag than a full `AbortController` per request.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: AbortListener): void;
}

/** One upstream call; the body is already serialised (no JSON pass happens here). */
export interface UpstreamRequest {
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string | Buffer;
  /**
   * From the moment a socket takes the call (connect included) until the response headers
   * arrive, milliseconds. A wait for a free socket does not count.
   */
  timeoutMs: number;
  /**
   * A shorter wait for the response headers (the first byte), milliseconds; the header wait is
   * the smaller of this and `timeoutMs`. Default none.
   */
  firstByteTimeoutMs?: number;
  /** Longest gap allowed between two body chunks, milliseconds; default none. */
  idleTimeoutMs?: number;
  /** Aborts the call at any point, the body included. */
  signal?: AbortSignalLike;
  /** HTTP method; default `POST`. */
  method?: "GET" | "POST";
}

/** An upstream response whose headers have arrived; the body is read at most once. */
export interface UpstreamResponse {
  status: number;
  /**
   * Lower-case names; a repeated header is folded as Node's `IncomingHttpHeaders` folds it (one
   * joined string, the first value of a few, an array only for `set-cookie`).
   */
  headers: Record<string, string | string[] | undefined>;
  /**
   * Body chunks as they arrive, read by events. `next()` rejects with `UpstreamError`
   * `timeout` after an idle gap longer than `idleTimeoutMs`, `network` when the connection
   * breaks, `aborted` on the signal. The upstream is paused while no `next()` is pending, so a
   * slow reader holds it back. The body is read at most once, by `chunks()` or `text()`.
   */
  chunks(): ChunkReader;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** The whole body parsed as JSON. */
  json(): Promise<unknown>;
  /** Gives the body up: small complete-able bodies are drained (socket reused), others cut. */
  discard(): void;
}

/** Pull-style reader of an upstream body; see `UpstreamResponse.chunks`. */
export interface ChunkReader {
  /** The next chunk, `done` at the clean end; rejects with `UpstreamError`. */
  next(): Promise<IteratorResult<Uint8Array, undefined>>;
}

/** Options of `createUpstreamClient`. */
export interface UpstreamClientOptions {
  /**
   * Concurrent sockets (one undici `Client` each) per origin; calls beyond wait for one, their
   * header timers not running while they wait. Default unlimited: the gateway limits
   * concurrency per connection (`connections[].maxConcurrent`), not per origin.
   */
  maxSockets?: number;
  /** TCP keep-alive probe delay of pooled sockets, milliseconds; default 1000. */
  keepAliveMsecs?: number;
}

/** A pooled HTTP(S) client for upstream calls; see `createUpstreamClient`. */
export interface UpstreamClient {
  /** Resolves when response headers arrive; rejects with `UpstreamError`. */
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  /**
   * Upstream connections held now across origins, busy or idle (one socket each at most; an
   * idle one is let go when its socket closes).
   */
  connectionCount(): number;
  /** Destroys every pooled socket; calls in flight or waiting for a socket fail. */
  close(): void;
}
