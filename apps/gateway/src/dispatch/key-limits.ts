import { GatewayError } from "../errors";
import type { ClientStreamSource, GatewayReply } from "../http/reply";
import type { ClientIdentity, ClientKeyLimits } from "../routing/client-identity";
import type { Dispatcher } from "./types";
import { wrapDispatch } from "./wrap-dispatch";

/** The span `requestsPerMinute` counts over, in ms. */
export const RATE_WINDOW_MS = 60_000;

/** What one limited key has going on in this process. */
interface KeyUsage {
  inFlight: number;
  /**
   * Start instants of the key's last `requestsPerMinute` admitted requests, a ring: `next` is
   * the oldest once the ring is full. Empty when the key has no rate limit.
   */
  starts: Float64Array;
  next: number;
  filled: number;
}

/**
 * Each client key's requests in flight and recent starts, against its `maxConcurrent` and
 * `requestsPerMinute`. One per gateway process, shared by every configuration it serves, so a
 * reload neither frees the slots of requests in flight nor forgets the last minute. On Redis
 * storage the counts are shared by every replica (key-limits-redis.ts); otherwise they are this
 * process's.
 */
export interface KeyLimiter {
  /**
   * Takes a slot for a request of `client` and resolves with the function that gives it back
   * (call it once; later calls do nothing). Over either limit rejects with `GatewayError`
   * `key_rate_limited` and a `Retry-After`: 1 s for concurrency, the time until the oldest start
   * leaves the last 60 s for the rate.
   */
  admit(client: ClientIdentity, limits: ClientKeyLimits): Promise<() => void>;
  /** Stops what the limiter runs in the background and closes its connection, if any. */
  close(): Promise<void>;
}

/** The counts of this process alone: {@link KeyLimiter}'s `admit`, answered at once. */
interface ProcessKeyLimiter {
  /** As `KeyLimiter.admit`, but returns the give-back function or throws. */
  admit(client: ClientIdentity, limits: ClientKeyLimits): () => void;
}

/** A limiter that counts this process's requests, on the injected clock (epoch ms). */
export function createKeyLimiter(now: () => number): KeyLimiter {
  const counts = createProcessKeyLimiter(now);
  return {
    admit: async (client, limits) => counts.admit(client, limits),
    close: async () => {},
  };
}

/** This process's counts on the injected clock (epoch ms). */
export function createProcessKeyLimiter(now: () => number): ProcessKeyLimiter {
  const usage = new Map<string, KeyUsage>();

  const usageOf = (keyId: string, limits: ClientKeyLimits): KeyUsage => {
    const size = limits.requestsPerMinute ?? 0;
    let held = usage.get(keyId);
    if (held === undefined) {
      held = { inFlight: 0, starts: new Float64Array(size), next: 0, filled: 0 };
      usage.set(keyId, held);
    } else if (held.starts.length !== size) {
      // The key's limit changed (a new config): its count starts over, its requests in flight stay.
      held.starts = new Float64Array(size);
      held.next = 0;
      held.filled = 0;
    }
    return held;
  };

  return {
    admit(client, limits) {
      const held = usageOf(client.id, limits);
      const { maxConcurrent, requestsPerMinute } = limits;
      if (maxConcurrent !== null && held.inFlight >= maxConcurrent) {
        throw concurrencyLimited(client.id, held.inFlight);
      }
      const nowMs = now();
      if (requestsPerMinute !== null && held.filled === requestsPerMinute) {
        const freeAtMs = held.starts[held.next]! + RATE_WINDOW_MS;
        if (freeAtMs > nowMs) {
          throw startsLimited(client.id, requestsPerMinute, freeAtMs - nowMs);
        }
      }
      if (requestsPerMinute !== null) {
        held.starts[held.next] = nowMs;
        held.next = (held.next + 1) % requestsPerMinute;
        if (held.filled < requestsPerMinute) held.filled += 1;
      }
      held.inFlight += 1;
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        held.inFlight -= 1;
      };
    },
  };
}

/**
 * The dispatcher with each client key's `maxConcurrent` and `requestsPerMinute` enforced by
 * `limiter` before routing: over either, the request is refused with `429 key_rate_limited` and
 * nothing is routed, reserved or sent. The rate is a sliding 60 s window on the injected clock,
 * counted by the limiter (every replica's requests on Redis, this process's otherwise). A
 * request holds its concurrency slot until its answer is whole, or a stream until it ends or its
 * client goes away; the slot is given back exactly once on every path. A key without limits
 * goes straight to the dispatcher: no lookup, no await, no allocation; so does an unbilled call
 * (`count_tokens`), which is not counted.
 */
export function limitClientKeys(dispatcher: Dispatcher, limiter: KeyLimiter): Dispatcher {
  return wrapDispatch(dispatcher, (request) => {
    const limits = request.client.limits;
    // A count of tokens bills nothing and answers at once: it is not one of the key's requests.
    if (!limits || request.unbilled) return dispatcher.dispatch(request);
    return limiter.admit(request.client, limits).then((giveBack) =>
      dispatcher.dispatch(request).then(
        (reply) => holdUntilEnd(reply, giveBack),
        (error: unknown) => {
          giveBack();
          throw error;
        },
      ),
    );
  });
}

/** `reply`, whose end calls `giveBack`: a whole answer now, a stream once it ends or is cancelled. */
function holdUntilEnd(reply: GatewayReply, giveBack: () => void): GatewayReply {
  if (reply.kind === "body") {
    giveBack();
    return reply;
  }
  const inner = reply.source;
  const source: ClientStreamSource = {
    first: inner.first,
    async next() {
      const piece = await inner.next();
      if (piece.done) giveBack();
      return piece;
    },
    cancel() {
      giveBack();
      inner.cancel();
    },
  };
  return { ...reply, source };
}

/** The refusal of a key with `inFlight` requests in flight, at or over its `maxConcurrent`. */
export function concurrencyLimited(keyId: string, inFlight: number): GatewayError {
  return rateLimited(
    `client key "${keyId}" has ${inFlight} requests in flight, its maxConcurrent`,
    1,
  );
}

/**
 * The refusal of a key that started `requestsPerMinute` requests in the last 60 s, whose oldest
 * of them leaves that span in `freeInMs`.
 */
export function startsLimited(
  keyId: string,
  requestsPerMinute: number,
  freeInMs: number,
): GatewayError {
  return rateLimited(
    `client key "${keyId}" started ${requestsPerMinute} requests in the last 60 s, its requestsPerMinute`,
    Math.max(1, Math.ceil(freeInMs / 1000)),
  );
}

function rateLimited(message: string, retryAfterSec: number): GatewayError {
  return new GatewayError({
    code: "key_rate_limited",
    message: `${message}; retry in ${retryAfterSec} s`,
    details: { retry_after_seconds: retryAfterSec },
    retryAfterSec,
  });
}
