import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { UpstreamError } from "./upstream-error";

/**
 * The part of `AbortSignal` the client reads; an `AbortSignal` is one. Lets a server hand in a
 * cheaper "client went away" flag than a full `AbortController` per request.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** One upstream call; the body is already serialised (no JSON pass happens here). */
export interface UpstreamRequest {
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string | Buffer;
  /** Whole request until the response headers arrive, milliseconds. */
  timeoutMs: number;
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
   * Body chunks as they arrive. Throws {@link UpstreamError} `timeout` after an idle gap longer
   * than `idleTimeoutMs`, `network` when the connection breaks, `aborted` on the signal.
   */
  body: AsyncIterable<Uint8Array>;
  /**
   * Body chunks read by events, with no async iterator per response: the same chunks and the
   * same errors as `body`. The upstream is paused while no `next()` is pending, so a slow
   * reader holds it back. Read at most once, like `body`.
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
 * closed it while idle) is sent once more on a fresh socket.
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

  function attempt(
    request: UpstreamRequest,
    target: ParsedTarget,
    mayRetry: boolean,
  ): Promise<UpstreamResponse> {
    const { origin } = target;
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const signal = request.signal;
      if (signal?.aborted) {
        reject(
          new UpstreamError("aborted", origin, `request to ${origin} aborted before it was sent`),
        );
        return;
      }
      const body = request.body;
      const headers: http.OutgoingHttpHeaders = { ...request.headers };
      headers["content-length"] = typeof body === "string" ? Buffer.byteLength(body) : body.length;
      const req = target.transport.request({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: request.method ?? "POST",
        headers,
        agent: target.agent,
      });
      let settled = false;
      const headerTimer = setTimeout(() => {
        req.destroy(
          new UpstreamError(
            "timeout",
            origin,
            `no response from ${origin} within ${request.timeoutMs} ms`,
          ),
        );
      }, request.timeoutMs);
      const onAbort = () => {
        req.destroy(new UpstreamError("aborted", origin, `request to ${origin} aborted`));
      };
      signal?.addEventListener("abort", onAbort, { once: true });

      req.on("error", (error) => {
        clearTimeout(headerTimer);
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        const code = errorCode(error);
        if (mayRetry && req.reusedSocket && (code === "ECONNRESET" || code === "EPIPE")) {
          resolve(attempt(request, target, false));
          return;
        }
        reject(
          error instanceof UpstreamError
            ? error
            : new UpstreamError(
                "network",
                origin,
                `upstream ${origin} unreachable (${code ?? "error"})`,
                error,
              ),
        );
      });
      req.on("response", (res) => {
        clearTimeout(headerTimer);
        settled = true;
        resolve(wrapResponse(res, request, origin, signal, onAbort));
      });
      req.end(body);
    });
  }

  return {
    send(request) {
      let target: ParsedTarget;
      try {
        target = targetFor(request.url);
      } catch (cause) {
        return Promise.reject(
          new UpstreamError("network", "invalid-url", "upstream URL is not valid", cause),
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

function ignoreError(): void {}

function wrapResponse(
  res: IncomingMessage,
  request: UpstreamRequest,
  origin: string,
  signal: AbortSignalLike | undefined,
  onRequestAbort: () => void,
): UpstreamResponse {
  let started = false;
  let waiting = false;
  let idleTimer: NodeJS.Timeout | undefined;
  const idleTimeoutMs = request.idleTimeoutMs;

  signal?.removeEventListener("abort", onRequestAbort);
  const onAbort = () =>
    res.destroy(new UpstreamError("aborted", origin, `request to ${origin} aborted`));
  signal?.addEventListener("abort", onAbort, { once: true });

  if (idleTimeoutMs !== undefined && idleTimeoutMs > 0) {
    idleTimer = setTimeout(function onIdle() {
      // Only time the upstream: while nobody is waiting for a chunk the clock does not run.
      if (!waiting) {
        idleTimer?.refresh();
        return;
      }
      res.destroy(
        new UpstreamError(
          "timeout",
          origin,
          `no data from ${origin} for ${idleTimeoutMs} ms mid-body`,
        ),
      );
    }, idleTimeoutMs);
    idleTimer.unref();
  }

  // Body errors surface through the iterator; this keeps an unread failing body from crashing.
  res.on("error", ignoreError);

  const cleanup = () => {
    if (idleTimer) clearTimeout(idleTimer);
    signal?.removeEventListener("abort", onAbort);
  };
  res.once("close", cleanup);

  async function* iterate(): AsyncGenerator<Uint8Array> {
    if (started) throw new Error("the upstream body can be read only once");
    started = true;
    const iterator = res[Symbol.asyncIterator]();
    try {
      while (true) {
        waiting = true;
        idleTimer?.refresh();
        const next = await iterator.next();
        waiting = false;
        if (next.done) return;
        yield next.value as Uint8Array;
      }
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      throw new UpstreamError("network", origin, `connection to ${origin} closed mid-body`, error);
    } finally {
      waiting = false;
      cleanup();
    }
  }

  const body: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: iterate };

  // The whole body by events: no async iterator per response on the non-stream path.
  function text(): Promise<string> {
    if (started) return Promise.reject(new Error("the upstream body can be read only once"));
    started = true;
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        idleTimer?.refresh();
      };
      const onEnd = () => {
        finish();
        resolve(
          chunks.length === 1
            ? chunks[0]!.toString("utf8")
            : Buffer.concat(chunks).toString("utf8"),
        );
      };
      const onError = (error: unknown) => {
        finish();
        reject(
          error instanceof UpstreamError
            ? error
            : new UpstreamError(
                "network",
                origin,
                `connection to ${origin} closed mid-body`,
                error,
              ),
        );
      };
      const onClose = () => {
        if (!res.readableEnded) onError(res.errored ?? new Error("premature close"));
      };
      const finish = () => {
        waiting = false;
        res.off("data", onData);
        res.off("end", onEnd);
        res.off("error", onError);
        res.off("close", onClose);
        cleanup();
      };
      if (res.readableEnded || res.destroyed) {
        onError(res.errored ?? new Error("the upstream body is gone"));
        return;
      }
      waiting = true;
      idleTimer?.refresh();
      res.on("data", onData);
      res.once("end", onEnd);
      res.once("error", onError);
      res.once("close", onClose);
    });
  }

  function chunks(): ChunkReader {
    if (started) throw new Error("the upstream body can be read only once");
    started = true;
    const queue: Uint8Array[] = [];
    let failure: UpstreamError | null = null;
    let ended = false;
    let resolveNext: ((result: IteratorResult<Uint8Array, undefined>) => void) | null = null;
    let rejectNext: ((error: UpstreamError) => void) | null = null;

    const deliver = () => {
      const resolve = resolveNext;
      const reject = rejectNext;
      if (!resolve || !reject) return;
      if (queue.length === 0 && !ended && !failure) return;
      resolveNext = null;
      rejectNext = null;
      waiting = false;
      if (queue.length > 0) resolve({ done: false, value: queue.shift()! });
      else if (failure) reject(failure);
      else resolve({ done: true, value: undefined });
    };
    const onData = (chunk: Buffer) => {
      queue.push(chunk);
      idleTimer?.refresh();
      if (resolveNext) deliver();
      else res.pause();
    };
    const onEnd = () => {
      ended = true;
      finish();
      deliver();
    };
    const onError = (error: unknown) => {
      if (ended || failure) return;
      failure =
        error instanceof UpstreamError
          ? error
          : new UpstreamError("network", origin, `connection to ${origin} closed mid-body`, error);
      finish();
      deliver();
    };
    const onClose = () => {
      if (!res.readableEnded) onError(res.errored ?? new Error("premature close"));
    };
    const finish = () => {
      waiting = false;
      res.off("data", onData);
      res.off("end", onEnd);
      res.off("error", onError);
      res.off("close", onClose);
      cleanup();
    };
    if (res.readableEnded || res.destroyed) {
      onError(res.errored ?? new Error("the upstream body is gone"));
    } else {
      res.on("data", onData);
      res.once("end", onEnd);
      res.once("error", onError);
      res.once("close", onClose);
    }
    return {
      next() {
        if (queue.length > 0) return Promise.resolve({ done: false, value: queue.shift()! });
        if (failure) return Promise.reject(failure);
        if (ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve, reject) => {
          resolveNext = resolve;
          rejectNext = reject;
          waiting = true;
          idleTimer?.refresh();
          res.resume();
        });
      },
    };
  }

  const headers: IncomingHttpHeaders = res.headers;
  return {
    chunks,
    status: res.statusCode ?? 0,
    headers,
    body,
    text,
    async json() {
      return JSON.parse(await text());
    },
    discard() {
      cleanup();
      if (res.readableEnded || res.destroyed) return;
      const length = Number(res.headers["content-length"]);
      // The socket returns to the pool only after 'end', so even a fully received body is drained.
      if (!started && (res.complete || (Number.isFinite(length) && length <= DRAIN_LIMIT_BYTES))) {
        res.resume();
      } else {
        res.destroy();
      }
    },
  };
}
