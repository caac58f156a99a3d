import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { UpstreamError } from "./upstream-error";

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
  /** Whole request until the response headers arrive, milliseconds. */
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
  /** Lower-case names, as Node's `IncomingHttpHeaders`. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * Body chunks as they arrive, read by events. `next()` rejects with {@link UpstreamError}
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
  /** The next chunk, `done` at the clean end; rejects with {@link UpstreamError}. */
  next(): Promise<IteratorResult<Uint8Array, undefined>>;
}

/** Options of {@link createUpstreamClient}. */
export interface UpstreamClientOptions {
  /** Concurrent sockets per origin; default 64. */
  maxSockets?: number;
  /** TCP keep-alive probe delay for idle pooled sockets, milliseconds; default 1000. */
  keepAliveMsecs?: number;
}

/** A pooled HTTP(S) client for upstream calls; see {@link createUpstreamClient}. */
export interface UpstreamClient {
  /** Resolves when response headers arrive; rejects with {@link UpstreamError}. */
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  /** Destroys every pooled socket. */
  close(): void;
}

/** Bodies up to this size are drained on `discard()` so the keep-alive socket can be reused. Bytes. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/**
 * Creates the upstream client: node:http / node:https with one keep-alive Agent per origin,
 * reused across calls. A request that fails with a reset on a reused pooled socket (the server
 * closed it while idle) is sent once more on a fresh socket only when that cannot send it
 * twice: a GET always, a POST only when not one byte of it had been handed to the socket (a
 * POST the upstream may have read may have been billed, so it fails like any network error).
 */
export function createUpstreamClient(options: UpstreamClientOptions = {}): UpstreamClient {
  const maxSockets = options.maxSockets ?? 64;
  const keepAliveMsecs = options.keepAliveMsecs ?? 1000;
  const agents = new Map<string, http.Agent>();
  // Parsed upstream URLs: they come from config and usage endpoints, so a handful of strings.
  const targets = new Map<string, ParsedTarget>();

  function agentFor(url: URL): http.Agent {
    let agent = agents.get(url.origin);
    if (!agent) {
      const agentOptions = {
        keepAlive: true,
        keepAliveMsecs,
        maxSockets,
        maxFreeSockets: maxSockets,
      };
      agent =
        url.protocol === "https:" ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
      agents.set(url.origin, agent);
    }
    return agent;
  }

  function targetFor(href: string): ParsedTarget {
    let target = targets.get(href);
    if (!target) {
      const url = new URL(href);
      target = {
        origin: url.origin,
        transport: url.protocol === "https:" ? https : http,
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        agent: agentFor(url),
      };
      if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
      targets.set(href, target);
    }
    return target;
  }

  return {
    send(request) {
      let target: ParsedTarget;
      try {
        target = targetFor(request.url);
      } catch (cause) {
        return Promise.reject(
          new UpstreamError({
            code: "network",
            origin: "invalid-url",
            message: "upstream URL is not valid",
            cause,
          }),
        );
      }
      return attempt(request, target, true);
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
      targets.clear();
    },
  };
}

/** Where one upstream URL goes, parsed once. */
interface ParsedTarget {
  origin: string;
  transport: typeof http | typeof https;
  protocol: string;
  hostname: string;
  port: string;
  path: string;
  agent: http.Agent;
}

/** Parsed URLs kept at most; past it the cache starts over (no unbounded growth). */
const MAX_CACHED_TARGETS = 256;

/**
 * One attempt, from sending until the response headers arrive (or the attempt fails). It is the
 * abort listener itself, and the request's listeners find it on the request: no closures per call.
 */
class PendingCall {
  settled = false;
  headerTimer: NodeJS.Timeout | undefined;
  /** The header wait actually armed: the smaller of `timeoutMs` and `firstByteTimeoutMs`. */
  headerWaitMs = 0;
  /** The socket's `bytesWritten` when it was given this request; undefined before that. */
  bytesBefore: number | undefined;

  constructor(
    readonly req: http.ClientRequest,
    readonly request: UpstreamRequest,
    readonly target: ParsedTarget,
    readonly mayRetry: boolean,
    readonly resolve: (response: UpstreamResponse | Promise<UpstreamResponse>) => void,
    readonly reject: (error: UpstreamError) => void,
  ) {}

  /** The signal fired before the response headers. */
  handleEvent(): void {
    const { origin } = this.target;
    this.req.destroy(
      new UpstreamError({ code: "aborted", origin, message: `request to ${origin} aborted` }),
    );
  }
}

const PENDING_CALL = Symbol("pendingCall");
type CallRequest = http.ClientRequest & { [PENDING_CALL]?: PendingCall };

function attempt(
  request: UpstreamRequest,
  target: ParsedTarget,
  mayRetry: boolean,
): Promise<UpstreamResponse> {
  return new Promise<UpstreamResponse>((resolve, reject) => {
    const signal = request.signal;
    if (signal?.aborted) {
      const { origin } = target;
      reject(
        new UpstreamError({
          code: "aborted",
          origin,
          message: `request to ${origin} aborted before it was sent`,
        }),
      );
      return;
    }
    const body = request.body;
    const headers: http.OutgoingHttpHeaders = { ...request.headers };
    headers["content-length"] = typeof body === "string" ? Buffer.byteLength(body) : body.length;
    const req: CallRequest = target.transport.request({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      method: request.method ?? "POST",
      headers,
      agent: target.agent,
    });
    const call = new PendingCall(req, request, target, mayRetry, resolve, reject);
    req[PENDING_CALL] = call;
    call.headerWaitMs = headerWaitOf(request);
    call.headerTimer = setTimeout(onHeaderTimeout, call.headerWaitMs, call);
    signal?.addEventListener("abort", call, { once: true });
    req.once("socket", onCallSocket);
    req.on("error", onCallError);
    req.on("response", onCallResponse);
    req.end(body);
  });
}

function onHeaderTimeout(call: PendingCall): void {
  const { origin } = call.target;
  call.req.destroy(
    new UpstreamError({
      code: "timeout",
      origin,
      message: `no response from ${origin} within ${call.headerWaitMs} ms`,
    }),
  );
}

function onCallError(this: CallRequest, error: Error): void {
  const call = this[PENDING_CALL]!;
  clearTimeout(call.headerTimer);
  if (call.settled) return;
  call.settled = true;
  call.request.signal?.removeEventListener("abort", call);
  const code = errorCode(error);
  if (
    call.mayRetry &&
    this.reusedSocket &&
    (code === "ECONNRESET" || code === "EPIPE") &&
    neverSent(call, this)
  ) {
    call.resolve(attempt(call.request, call.target, false));
    return;
  }
  const { origin } = call.target;
  call.reject(
    UpstreamError.isInstance(error)
      ? error
      : new UpstreamError({
          code: "network",
          origin,
          message: `upstream ${origin} unreachable (${code ?? "error"})`,
          cause: error,
        }),
  );
}

/** The smaller of the request's header timeouts. */
function headerWaitOf(request: UpstreamRequest): number {
  const firstByte = request.firstByteTimeoutMs;
  return firstByte !== undefined && firstByte > 0 && firstByte < request.timeoutMs
    ? firstByte
    : request.timeoutMs;
}

function onCallSocket(this: CallRequest, socket: Socket): void {
  // Node hands the request's bytes to the socket only after this event (next tick).
  this[PENDING_CALL]!.bytesBefore = socket.bytesWritten ?? 0;
}

/**
 * True when re-sending cannot duplicate the call: a GET (idempotent), or a request of which no
 * byte reached the socket (`bytesWritten` counts what was handed to the kernel and what waits
 * in the socket's buffer, so an unchanged count proves nothing left this process). Anything
 * else may have been read, and billed, by the upstream.
 */
function neverSent(call: PendingCall, req: CallRequest): boolean {
  if ((call.request.method ?? "POST") === "GET") return true;
  if (call.bytesBefore === undefined) return true;
  const written = req.socket?.bytesWritten;
  return written !== undefined && written === call.bytesBefore;
}

function onCallResponse(this: CallRequest, res: IncomingMessage): void {
  const call = this[PENDING_CALL]!;
  clearTimeout(call.headerTimer);
  call.settled = true;
  call.request.signal?.removeEventListener("abort", call);
  call.resolve(new NodeUpstreamResponse(res, call.request, call.target.origin));
}

function ignoreError(): void {}

const UPSTREAM_RESPONSE = Symbol("upstreamResponse");
type ResponseMessage = IncomingMessage & { [UPSTREAM_RESPONSE]?: NodeUpstreamResponse };

function bodyGone(res: IncomingMessage): Error {
  return res.errored ?? new Error("the upstream body is gone");
}

/**
 * An upstream response over Node's `IncomingMessage`. One object per response holds the state of
 * whichever reader is used (`text`, `chunks` or `body`); the body listeners are shared functions
 * that find it on the message, so reading a body creates no closures.
 */
class NodeUpstreamResponse implements UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  private started = false;
  /** True while a reader waits for the upstream: only then does the idle clock run. */
  waiting = false;
  idleTimer: NodeJS.Timeout | undefined;
  readonly idleTimeoutMs: number | undefined;
  private readonly signal: AbortSignalLike | undefined;
  // text(): the chunks so far and the pending promise.
  textChunks: Buffer[] = [];
  resolveText: ((text: string) => void) | null = null;
  rejectText: ((error: UpstreamError) => void) | null = null;
  // chunks(): the queue and the pending `next()`.
  queue: Uint8Array[] = [];
  failure: UpstreamError | null = null;
  ended = false;
  resolveNext: ((result: IteratorResult<Uint8Array, undefined>) => void) | null = null;
  rejectNext: ((error: UpstreamError) => void) | null = null;

  constructor(
    readonly res: ResponseMessage,
    request: UpstreamRequest,
    readonly origin: string,
  ) {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    this.signal = request.signal;
    res[UPSTREAM_RESPONSE] = this;
    this.signal?.addEventListener("abort", this, { once: true });
    const idleTimeoutMs = request.idleTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    if (idleTimeoutMs !== undefined && idleTimeoutMs > 0) {
      this.idleTimer = setTimeout(onIdle, idleTimeoutMs, this);
      this.idleTimer.unref();
    }
    // Body errors surface through the readers; this keeps an unread failing body from crashing.
    res.on("error", ignoreError);
    res.once("close", onResponseClosed);
  }

  /** The signal fired while the body is being received. */
  handleEvent(): void {
    const { origin } = this;
    this.res.destroy(
      new UpstreamError({ code: "aborted", origin, message: `request to ${origin} aborted` }),
    );
  }

  cleanup(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.signal?.removeEventListener("abort", this);
  }

  /** Wraps a body failure as an `UpstreamError`. */
  bodyError(error: unknown): UpstreamError {
    if (UpstreamError.isInstance(error)) return error;
    const { origin } = this;
    return new UpstreamError({
      code: "network",
      origin,
      message: `connection to ${origin} closed mid-body`,
      cause: error,
    });
  }

  // The whole body by events: no async iterator per response on the non-stream path.
  text(): Promise<string> {
    if (this.started) return Promise.reject(new Error("the upstream body can be read only once"));
    this.started = true;
    const res = this.res;
    if (res.readableEnded || res.destroyed) {
      this.cleanup();
      return Promise.reject(this.bodyError(bodyGone(res)));
    }
    return new Promise<string>((resolve, reject) => {
      this.resolveText = resolve;
      this.rejectText = reject;
      this.waiting = true;
      this.idleTimer?.refresh();
      res.on("data", onTextData);
      res.once("end", onTextEnd);
      res.once("error", onTextError);
      res.once("close", onTextClose);
    });
  }

  finishText(): void {
    this.waiting = false;
    const res = this.res;
    res.off("data", onTextData);
    res.off("end", onTextEnd);
    res.off("error", onTextError);
    res.off("close", onTextClose);
    this.cleanup();
  }

  failText(error: unknown): void {
    const reject = this.rejectText;
    if (!reject) return;
    this.resolveText = null;
    this.rejectText = null;
    this.finishText();
    reject(this.bodyError(error));
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  chunks(): ChunkReader {
    if (this.started) throw new Error("the upstream body can be read only once");
    this.started = true;
    const res = this.res;
    if (res.readableEnded || res.destroyed) {
      this.failChunks(bodyGone(res));
    } else {
      res.on("data", onChunkData);
      res.once("end", onChunkEnd);
      res.once("error", onChunkError);
      res.once("close", onChunkClose);
    }
    return new ChunkQueueReader(this);
  }

  /** Hands the pending `next()` what is ready: a chunk, the failure or the end. */
  deliver(): void {
    const resolve = this.resolveNext;
    const reject = this.rejectNext;
    if (!resolve || !reject) return;
    if (this.queue.length === 0 && !this.ended && !this.failure) return;
    this.resolveNext = null;
    this.rejectNext = null;
    this.waiting = false;
    if (this.queue.length > 0) resolve({ done: false, value: this.queue.shift()! });
    else if (this.failure) reject(this.failure);
    else resolve({ done: true, value: undefined });
  }

  finishChunks(): void {
    this.waiting = false;
    const res = this.res;
    res.off("data", onChunkData);
    res.off("end", onChunkEnd);
    res.off("error", onChunkError);
    res.off("close", onChunkClose);
    this.cleanup();
  }

  failChunks(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = this.bodyError(error);
    this.finishChunks();
    this.deliver();
  }

  discard(): void {
    this.cleanup();
    const res = this.res;
    if (res.readableEnded || res.destroyed) return;
    const length = Number(res.headers["content-length"]);
    // The socket returns to the pool only after 'end', so even a fully received body is drained.
    if (
      !this.started &&
      (res.complete || (Number.isFinite(length) && length <= DRAIN_LIMIT_BYTES))
    ) {
      res.resume();
    } else {
      res.destroy();
    }
  }
}

/** `UpstreamResponse.chunks()`: pulls from the response's queue, resuming the upstream on demand. */
class ChunkQueueReader implements ChunkReader {
  constructor(private readonly response: NodeUpstreamResponse) {}

  next(): Promise<IteratorResult<Uint8Array, undefined>> {
    const response = this.response;
    if (response.queue.length > 0) {
      return Promise.resolve({ done: false, value: response.queue.shift()! });
    }
    if (response.failure) return Promise.reject(response.failure);
    if (response.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      response.resolveNext = resolve;
      response.rejectNext = reject;
      response.waiting = true;
      response.idleTimer?.refresh();
      response.res.resume();
    });
  }
}

function responseOf(res: ResponseMessage): NodeUpstreamResponse {
  return res[UPSTREAM_RESPONSE]!;
}

function onIdle(response: NodeUpstreamResponse): void {
  // Only time the upstream: while nobody is waiting for a chunk the clock does not run.
  if (!response.waiting) {
    response.idleTimer?.refresh();
    return;
  }
  const { origin } = response;
  response.res.destroy(
    new UpstreamError({
      code: "timeout",
      origin,
      message: `no data from ${origin} for ${response.idleTimeoutMs} ms mid-body`,
    }),
  );
}

function onResponseClosed(this: ResponseMessage): void {
  responseOf(this).cleanup();
}

function onTextData(this: ResponseMessage, chunk: Buffer): void {
  const response = responseOf(this);
  response.textChunks.push(chunk);
  response.idleTimer?.refresh();
}

function onTextEnd(this: ResponseMessage): void {
  const response = responseOf(this);
  const resolve = response.resolveText;
  if (!resolve) return;
  response.resolveText = null;
  response.rejectText = null;
  response.finishText();
  const chunks = response.textChunks;
  response.textChunks = [];
  resolve(
    chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
  );
}

function onTextError(this: ResponseMessage, error: unknown): void {
  responseOf(this).failText(error);
}

function onTextClose(this: ResponseMessage): void {
  if (!this.readableEnded) responseOf(this).failText(this.errored ?? new Error("premature close"));
}

function onChunkData(this: ResponseMessage, chunk: Buffer): void {
  const response = responseOf(this);
  response.queue.push(chunk);
  response.idleTimer?.refresh();
  if (response.resolveNext) response.deliver();
  else this.pause();
}

function onChunkEnd(this: ResponseMessage): void {
  const response = responseOf(this);
  response.ended = true;
  response.finishChunks();
  response.deliver();
}

function onChunkError(this: ResponseMessage, error: unknown): void {
  responseOf(this).failChunks(error);
}

function onChunkClose(this: ResponseMessage): void {
  if (!this.readableEnded)
    responseOf(this).failChunks(this.errored ?? new Error("premature close"));
}
