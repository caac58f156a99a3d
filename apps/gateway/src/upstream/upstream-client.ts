import { buildConnector, Client, type Dispatcher } from "undici";
import { UpstreamError } from "./upstream-error";
import type {
  AbortSignalLike,
  ChunkReader,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamRequest,
  UpstreamResponse,
} from "./upstream-types";

/** Bodies up to this size are drained on `discard()` so the keep-alive socket can be reused. Bytes. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** Parsed URLs kept at most; past it the cache starts over (no unbounded growth). */
const MAX_CACHED_TARGETS = 256;

/**
 * Creates the gateway's upstream client, on undici 7: per origin as many undici `Client`s of one
 * socket each as there are calls in flight (see {@link OriginPool} for why not undici's `Pool`),
 * each request handed to `Client.dispatch()` with a handler of its own (no `Readable` per
 * response). Clients (an idle one until its socket closes) and parsed URLs are kept across
 * calls; `close()` destroys them.
 *
 * Options: `maxSockets` caps the clients per origin (default none: a gateway's concurrency is
 * limited per connection by the operator, in the dispatcher, never by a hidden cap here; every
 * Claude login and key shares one origin). `keepAliveMsecs` is the TCP keep-alive probe delay,
 * passed as `connect.keepAliveInitialDelay` (default 1000). undici closes a socket left idle
 * longer than its keep-alive timeout (4 s, or the server's `Keep-Alive: timeout` hint less 2 s).
 *
 * Timeouts are timers of this client (`timeoutMs` and `firstByteTimeoutMs` from the moment a
 * socket's client takes the call until the response headers, the connect included;
 * `idleTimeoutMs` while a reader waits for a chunk), and undici's own
 * `headersTimeout`/`bodyTimeout` are switched off (0): undici arms its header timer only once the
 * request is written (`resumeH1()` in lib/dispatcher/client-h1.js), so it would not count the
 * connect that `timeoutMs` covers, and both of its timers run on its "fast timer" clock
 * (lib/util/timers.js), which ticks every ~500 ms and cannot keep a 50 ms `firstByteTimeoutMs`.
 * Its body timer, like ours, does not run while the body is paused. A call waiting for a socket
 * under `maxSockets` runs no header timer: that wait is this process's own, not the upstream
 * being slow, and must not time the call out (nor, through the dispatcher, cool a connection).
 *
 * How the stale-socket rule is kept (read from undici 7.30.2):
 * - `pipelining: 1`, so a socket carries at most one written request.
 * - A request stays in undici's pending queue until `_resume()` (lib/dispatcher/client.js) has
 *   written it with `writeH1()`; a string or Buffer body goes out with its headers in one corked
 *   `socket.write` (`writeBuffer()`), synchronously. Before writing on a socket that already
 *   served a request and sat idle, `resumeH1()` waits one `setImmediate`
 *   (`scheduleIdleSocketValidation()`) so a FIN or reset already pending on it is read first.
 * - When a socket closes (`onHttpSocketEnd()` turns a FIN into `SocketError('other side
 *   closed')`), `onHttpSocketClose()` fails only the head of the pipeline, the one written
 *   request, and sets `kPendingIdx = kRunningIdx`: every request not yet written stays queued and
 *   is written on a new connection. So a POST of which no byte reached the socket is re-sent by
 *   undici itself, on a fresh socket, and cannot be sent twice.
 * - A request that was written and then lost its connection reaches `onResponseError` here with
 *   `UND_ERR_SOCKET`, `ECONNRESET` or `EPIPE` before any response headers. A POST then fails as
 *   `network` (the upstream may have read and billed it). A GET is sent once more, on a one-shot
 *   `Client` of its own (a new socket, closed once that response is done), never on another
 *   pooled socket that might be stale too. This client cannot tell a reused socket from a new
 *   one, so it also re-sends a GET whose first socket broke; a GET cannot bill twice.
 * - A call given up (signal, header timeout) before undici wrote it is aborted from
 *   `onRequestStart`, which `writeH1()` calls before it writes and after which it checks
 *   `request.aborted`; one still waiting in {@link OriginPool} never reaches undici.
 *
 * Errors map to {@link UpstreamError}: undici's connect timeout (10 s) is `timeout`, an abort is
 * `aborted`, anything else `network`; messages carry the origin and an error code only, never a
 * header value.
 */
export function createUpstreamClient(options: UpstreamClientOptions = {}): UpstreamClient {
  const maxSockets = options.maxSockets ?? Number.POSITIVE_INFINITY;
  const clientOptions: Client.Options = {
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    // One connector for every client: given options instead, each client builds its own, with
    // a TLS session cache and a FinalizationRegistry of its own, per open socket.
    connect: buildConnector({
      keepAlive: true,
      keepAliveInitialDelay: options.keepAliveMsecs ?? 1000,
    }),
  };
  const pools = new Map<string, OriginPool>();
  const targets = new Map<string, UndiciTarget>();
  const retryClients = new Set<Client>();

  function poolFor(origin: string): OriginPool {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new OriginPool(origin, clientOptions, maxSockets);
      pools.set(origin, pool);
    }
    return pool;
  }

  function targetFor(href: string): UndiciTarget {
    let target = targets.get(href);
    if (!target) {
      const url = new URL(href);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new TypeError("unsupported protocol");
      }
      target = {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        pool: poolFor(url.origin),
        retry: retryOnFreshConnection,
      };
      if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
      targets.set(href, target);
    }
    return target;
  }

  /** Sends a GET again on a new socket of its own, closed once the response is done. */
  function retryOnFreshConnection(
    request: UpstreamRequest,
    target: UndiciTarget,
  ): Promise<UpstreamResponse> {
    const fresh = new Client(target.origin, clientOptions);
    retryClients.add(fresh);
    const response = attempt(request, target, fresh);
    // close() lets the dispatched request finish, then destroys the socket.
    const forget = () => retryClients.delete(fresh);
    fresh.close().then(forget, forget);
    return response;
  }

  return {
    send(request) {
      let target: UndiciTarget;
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
      return attempt(request, target, null);
    },
    connectionCount() {
      let count = retryClients.size;
      for (const pool of pools.values()) count += pool.size;
      return count;
    },
    close() {
      for (const pool of pools.values()) pool.destroy();
      for (const client of retryClients) client.destroy().catch(ignoreError);
      pools.clear();
      targets.clear();
      retryClients.clear();
    },
  };
}

/**
 * The sockets of one origin: undici `Client`s of one socket each (at most `maxSockets`), a
 * request of ours on each at most. undici's own `Pool` counts a `Client` busy until one
 * `setImmediate` after its response ended (`onMessageComplete()` in client-h1.js resumes the client then, and
 * `Pool`'s `kGetDispatcher` skips a client until its `drain`), so a call sent as soon as the
 * previous one finished opened a second socket and sequential calls alternated two. Here a
 * finished request frees its `Client` at once; the next request waits in that client's queue
 * for the turn undici wants, on the same socket. Free clients are taken last-in first-out, so the
 * busiest stay warm and idle ones age out under undici's keep-alive timeout. With a `maxSockets`
 * set, calls beyond it wait here, their header timers not yet running, and one given up (its
 * signal) while waiting is dropped without reaching undici.
 */
class OriginPool {
  private readonly clients = new Set<Client>();
  private readonly idle: Client[] = [];
  private readonly waiting: UndiciCall[] = [];

  constructor(
    readonly origin: string,
    private readonly options: Client.Options,
    private readonly maxSockets: number,
  ) {}

  /** Clients held now, busy or idle (each has one socket at most). */
  get size(): number {
    return this.clients.size;
  }

  dispatch(call: UndiciCall): void {
    let client = this.idle.pop();
    if (!client) {
      if (this.clients.size >= this.maxSockets) {
        this.waiting.push(call);
        return;
      }
      client = new Client(this.origin, this.options);
      client.on("disconnect", this.onSocketGone);
      client.on("connectionError", this.onSocketGone);
      this.clients.add(client);
    }
    call.start(client, this);
  }

  /**
   * An idle client whose socket closed (keep-alive timeout, the server's close, a cut body) or
   * never connected is dropped: with no cap, a burst of a thousand streams would otherwise leave
   * a thousand socketless clients behind for good. undici fails a client's request before it
   * reports the socket gone, so a client that just served one is idle by then; a busy one keeps
   * its queued request, which undici writes on a new socket.
   */
  private readonly onSocketGone = (_origin: unknown, targets: readonly unknown[]): void => {
    for (const target of targets) {
      const index = this.idle.indexOf(target as Client);
      if (index === -1) continue;
      this.idle.splice(index, 1);
      this.clients.delete(target as Client);
      (target as Client).destroy().catch(ignoreError);
    }
  };

  /** A request of ours on `client` is over: the client takes the next waiting call, or idles. */
  release(client: Client): void {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      if (next.settled) continue;
      next.start(client, this);
      return;
    }
    this.idle.push(client);
  }

  destroy(): void {
    for (const call of this.waiting.splice(0)) {
      call.giveUp(
        new UpstreamError({
          code: "network",
          origin: this.origin,
          message: `upstream client for ${this.origin} closed`,
        }),
      );
    }
    for (const client of this.clients) client.destroy().catch(ignoreError);
    this.clients.clear();
    this.idle.length = 0;
  }
}

/** Where one upstream URL goes, parsed once. */
interface UndiciTarget {
  origin: string;
  path: string;
  pool: OriginPool;
  retry(request: UpstreamRequest, target: UndiciTarget): Promise<UpstreamResponse>;
}

function ignoreError(): void {}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** The smaller of the request's header timeouts. */
function headerWaitOf(request: UpstreamRequest): number {
  const firstByte = request.firstByteTimeoutMs;
  return firstByte !== undefined && firstByte > 0 && firstByte < request.timeoutMs
    ? firstByte
    : request.timeoutMs;
}

/** Error codes of a connection that broke after the request was written, before the headers. */
const CONNECTION_BREAKS = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/**
 * One attempt, from sending until the response headers arrive (or the attempt fails): through
 * the origin's pool, or, for the one re-send a GET may get, on the `fresh` client given.
 */
function attempt(
  request: UpstreamRequest,
  target: UndiciTarget,
  fresh: Client | null,
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
    const call = new UndiciCall(request, target, fresh === null, resolve, reject);
    signal?.addEventListener("abort", call, { once: true });
    if (fresh) call.start(fresh, null);
    else target.pool.dispatch(call);
  });
}

function onHeaderTimeout(call: UndiciCall): void {
  const { origin } = call.target;
  call.giveUp(
    new UpstreamError({
      code: "timeout",
      origin,
      message: `no response from ${origin} within ${call.headerWaitMs} ms`,
    }),
  );
}

/**
 * One attempt as undici's dispatch handler. Until the response headers it settles the caller's
 * promise (and is the abort listener); after them it hands the body to its response.
 */
class UndiciCall implements Dispatcher.DispatchHandler {
  settled = false;
  headerTimer: NodeJS.Timeout | undefined;
  /** The header wait actually armed: the smaller of `timeoutMs` and `firstByteTimeoutMs`. */
  readonly headerWaitMs: number;
  controller: Dispatcher.DispatchController | null = null;
  /** Why the call was given up before undici started it: undici then aborts it unwritten. */
  cancelled: UpstreamError | null = null;
  response: UndiciUpstreamResponse | null = null;
  /** The client the request went to, and the pool to give it back to when undici is done. */
  private client: Client | null = null;
  private pool: OriginPool | null = null;

  constructor(
    readonly request: UpstreamRequest,
    readonly target: UndiciTarget,
    readonly mayRetry: boolean,
    readonly resolve: (response: UpstreamResponse | Promise<UpstreamResponse>) => void,
    readonly reject: (error: UpstreamError) => void,
  ) {
    this.headerWaitMs = headerWaitOf(request);
  }

  /** The signal fired before the response headers. */
  handleEvent(): void {
    const { origin } = this.target;
    this.giveUp(
      new UpstreamError({ code: "aborted", origin, message: `request to ${origin} aborted` }),
    );
  }

  /**
   * Hands the request to `client`; `pool` gets the client back once undici is done with it. The
   * header wait starts here, not when the call was made: time spent waiting for a socket is not
   * the upstream's.
   */
  start(client: Client, pool: OriginPool | null): void {
    this.client = client;
    this.pool = pool;
    this.headerTimer = setTimeout(onHeaderTimeout, this.headerWaitMs, this);
    const { request } = this;
    client.dispatch(
      {
        path: this.target.path,
        method: request.method ?? "POST",
        headers: request.headers,
        body: request.body,
      },
      this,
    );
  }

  /** undici is done with the request (ended or failed): its client may take the next one. */
  private finish(): void {
    const pool = this.pool;
    if (!pool) return;
    this.pool = null;
    pool.release(this.client!);
  }

  settle(): void {
    this.settled = true;
    clearTimeout(this.headerTimer);
    this.request.signal?.removeEventListener("abort", this);
  }

  /**
   * Fails the call now. undici aborts it at once, or as soon as it is about to be written; one
   * still waiting in the origin's pool is dropped there.
   */
  giveUp(error: UpstreamError): void {
    if (this.settled) return;
    this.settle();
    this.reject(error);
    if (this.controller) this.controller.abort(error);
    else this.cancelled = error;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Given up while queued: abort before undici writes a byte (writeH1 checks `aborted`).
    if (this.cancelled) controller.abort(this.cancelled);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return;
    if (this.settled) {
      controller.abort(this.cancelled ?? new Error("the call was given up"));
      return;
    }
    this.settle();
    // undici's controller keeps the raw header buffers, slices of the socket's first read, for
    // the response's whole life (a long stream's included); `headers` holds all that is read.
    (controller as { rawHeaders?: unknown }).rawHeaders = null;
    this.response = new UndiciUpstreamResponse(
      controller,
      statusCode,
      nodeStyleHeaders(headers),
      this.request,
      this.target.origin,
    );
    this.resolve(this.response);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.response?.onData(chunk);
  }

  onResponseEnd(): void {
    this.finish();
    this.response?.onEnd();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish();
    if (this.response) {
      this.response.onError(error);
      return;
    }
    if (this.settled) return;
    this.settle();
    const code = errorCode(error);
    if (
      this.mayRetry &&
      (this.request.method ?? "POST") === "GET" &&
      code !== undefined &&
      CONNECTION_BREAKS.has(code)
    ) {
      this.resolve(this.target.retry(this.request, this.target));
      return;
    }
    this.reject(headerError(error, code, this.target.origin));
  }
}

/** Maps an undici failure before the response headers to an {@link UpstreamError}. */
function headerError(error: unknown, code: string | undefined, origin: string): UpstreamError {
  if (UpstreamError.isInstance(error)) return error;
  if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT") {
    return new UpstreamError({
      code: "timeout",
      origin,
      message: `no response from ${origin} (${code})`,
      cause: error,
    });
  }
  if (code === "UND_ERR_ABORTED" || code === "UND_ERR_ABORT") {
    return new UpstreamError({
      code: "aborted",
      origin,
      message: `request to ${origin} aborted`,
      cause: error,
    });
  }
  return new UpstreamError({
    code: "network",
    origin,
    message: `upstream ${origin} unreachable (${code ?? "error"})`,
    cause: error,
  });
}

/** Headers Node's `IncomingMessage` keeps only the first of (it drops the repeats). */
const SINGLE_VALUE_HEADERS = new Set([
  "age",
  "authorization",
  "content-length",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
]);

/**
 * undici gives a repeated header as an array; Node's `IncomingMessage` joins most repeats with
 * ", ", keeps the first of a few and an array only for `set-cookie`. Callers (signal parsers,
 * relays) read one string per header, so repeats are folded the same way; most have none.
 */
function nodeStyleHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  for (const name in headers) {
    const value = headers[name];
    if (!Array.isArray(value) || name === "set-cookie") continue;
    if (SINGLE_VALUE_HEADERS.has(name)) headers[name] = value[0];
    else headers[name] = value.join(name === "cookie" ? "; " : ", ");
  }
  return headers;
}

/** What the body is being used for: not yet, `text()`, `chunks()` or `discard()`'s drain. */
type BodyMode = "unread" | "text" | "chunks" | "drain";

/**
 * An upstream response over undici's dispatch callbacks. Chunks that arrive with no reader
 * waiting are queued and undici is paused (`controller.pause()`, which stops reading the
 * socket), so a slow reader holds the upstream back; a waiting reader resumes it. The chunk
 * that completes a declared `content-length` does not pause it (nothing is left to hold back).
 */
class UndiciUpstreamResponse implements UpstreamResponse {
  private started = false;
  private mode: BodyMode = "unread";
  /** True while a reader waits for the upstream: only then does the idle clock run. */
  waiting = false;
  idleTimer: NodeJS.Timeout | undefined;
  readonly idleTimeoutMs: number | undefined;
  private readonly signal: AbortSignalLike | undefined;
  queue: Buffer[] = [];
  private drainedBytes = 0;
  /** Body bytes still to come by the declared `content-length`; Infinity without one. */
  private bodyBytesLeft: number;
  failure: UpstreamError | null = null;
  ended = false;
  private resolveText: ((text: string) => void) | null = null;
  private rejectText: ((error: UpstreamError) => void) | null = null;
  resolveNext: ((result: IteratorResult<Uint8Array, undefined>) => void) | null = null;
  rejectNext: ((error: UpstreamError) => void) | null = null;

  constructor(
    readonly controller: Dispatcher.DispatchController,
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    request: UpstreamRequest,
    readonly origin: string,
  ) {
    this.signal = request.signal;
    this.signal?.addEventListener("abort", this, { once: true });
    const declared = Number(headers["content-length"]);
    this.bodyBytesLeft = Number.isFinite(declared) ? declared : Number.POSITIVE_INFINITY;
    const idleTimeoutMs = request.idleTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    if (idleTimeoutMs !== undefined && idleTimeoutMs > 0) {
      this.idleTimer = setTimeout(onIdle, idleTimeoutMs, this);
      this.idleTimer.unref();
    }
  }

  /** The signal fired while the body is being received. */
  handleEvent(): void {
    const { origin } = this;
    this.controller.abort(
      new UpstreamError({ code: "aborted", origin, message: `request to ${origin} aborted` }),
    );
  }

  cleanup(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.signal?.removeEventListener("abort", this);
  }

  onData(chunk: Buffer): void {
    this.idleTimer?.refresh();
    this.bodyBytesLeft -= chunk.length;
    switch (this.mode) {
      case "text":
        this.queue.push(chunk);
        return;
      case "drain":
        this.drainedBytes += chunk.length;
        if (this.drainedBytes > DRAIN_LIMIT_BYTES) {
          // Not from inside undici's parser callback: an abort there can meet the end of the
          // message in the same buffer. Pausing stops the parser; the cut follows at once.
          this.controller.pause();
          queueMicrotask(() => this.controller.abort(cutBody()));
        }
        return;
      default: {
        const resolve = this.resolveNext;
        if (resolve) {
          this.resolveNext = null;
          this.rejectNext = null;
          this.waiting = false;
          resolve({ done: false, value: chunk });
          return;
        }
        this.queue.push(chunk);
        // Not on the last bytes of a declared length: nothing is left to hold back, and undici 7
        // asserts (and takes the process down) when a socket ends while its parser is paused,
        // which a `Connection: close` answer does right after those bytes.
        if (this.bodyBytesLeft > 0) this.controller.pause();
      }
    }
  }

  onEnd(): void {
    this.ended = true;
    this.waiting = false;
    this.cleanup();
    if (this.mode === "text") {
      const resolve = this.resolveText;
      this.resolveText = null;
      this.rejectText = null;
      resolve?.(this.takeText());
    } else if (this.mode === "chunks") {
      this.deliver();
    }
  }

  onError(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = this.bodyError(error);
    this.waiting = false;
    this.cleanup();
    if (this.mode === "text") {
      const reject = this.rejectText;
      this.resolveText = null;
      this.rejectText = null;
      this.queue = [];
      reject?.(this.failure);
    } else if (this.mode === "chunks") {
      this.deliver();
    }
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

  private takeText(): string {
    const chunks = this.queue;
    this.queue = [];
    if (chunks.length === 1) return chunks[0]!.toString("utf8");
    return Buffer.concat(chunks).toString("utf8");
  }

  text(): Promise<string> {
    if (this.started) return Promise.reject(new Error("the upstream body can be read only once"));
    this.started = true;
    this.mode = "text";
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(this.takeText());
    return new Promise<string>((resolve, reject) => {
      this.resolveText = resolve;
      this.rejectText = reject;
      this.waiting = true;
      this.idleTimer?.refresh();
      this.controller.resume();
    });
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  chunks(): ChunkReader {
    if (this.started) throw new Error("the upstream body can be read only once");
    this.started = true;
    this.mode = "chunks";
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

  /**
   * As undici's `body.dump({ limit })`: an unread body of at most 64 KiB (declared or, without a
   * length, as it arrives) is read to its end so the socket goes back to the pool; a larger or
   * half-read body is cut, which closes the socket.
   */
  discard(): void {
    this.cleanup();
    if (this.ended || this.failure) {
      this.queue = [];
      return;
    }
    const length = Number(this.headers["content-length"]);
    if (this.started || (Number.isFinite(length) && length > DRAIN_LIMIT_BYTES)) {
      this.controller.abort(cutBody());
      return;
    }
    for (const chunk of this.queue) this.drainedBytes += chunk.length;
    this.queue = [];
    if (this.drainedBytes > DRAIN_LIMIT_BYTES) {
      this.controller.abort(cutBody());
      return;
    }
    this.started = true;
    this.mode = "drain";
    this.controller.resume();
  }
}

/** The reason a discarded body is cut; nobody reads it. */
function cutBody(): Error {
  return new Error("upstream body discarded");
}

/** `UpstreamResponse.chunks()`: pulls from the response's queue, resuming the upstream on demand. */
class ChunkQueueReader implements ChunkReader {
  constructor(private readonly response: UndiciUpstreamResponse) {}

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
      response.controller.resume();
    });
  }
}

function onIdle(response: UndiciUpstreamResponse): void {
  // Only time the upstream: while nobody is waiting for a chunk the clock does not run.
  if (!response.waiting) {
    response.idleTimer?.refresh();
    return;
  }
  const { origin } = response;
  response.controller.abort(
    new UpstreamError({
      code: "timeout",
      origin,
      message: `no data from ${origin} for ${response.idleTimeoutMs} ms mid-body`,
    }),
  );
}
