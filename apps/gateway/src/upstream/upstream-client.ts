import { buildConnector, Client } from "undici";
import { OriginPool } from "./origin-pool";
import { attempt, type UndiciTarget } from "./undici-call";
import { ignoreError } from "./undici-errors";
import { UpstreamError } from "./upstream-error";
import type {
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamRequest,
  UpstreamResponse,
} from "./upstream-types";

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
