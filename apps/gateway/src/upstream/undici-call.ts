import type { Client, Dispatcher } from "undici";
import { nodeStyleHeaders } from "./node-style-headers";
import type { OriginPool } from "./origin-pool";
import { errorCode, headerError } from "./undici-errors";
import { UndiciUpstreamResponse } from "./undici-upstream-response";
import { UpstreamError } from "./upstream-error";
import type { UpstreamRequest, UpstreamResponse } from "./upstream-types";

/** Where one upstream URL goes, parsed once. */
export interface UndiciTarget {
  origin: string;
  path: string;
  pool: OriginPool;
  retry(request: UpstreamRequest, target: UndiciTarget): Promise<UpstreamResponse>;
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
export function attempt(
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
