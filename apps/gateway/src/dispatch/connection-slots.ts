import { GatewayError } from "../errors";
import type { AbortSignalLike } from "../upstream";
import { clientGone } from "./client-gone";

/** The attempt outcome of a target passed over because its connection was full. */
export const LOCAL_CAPACITY = "local_capacity" as const;

/** How a wait for a slot ended, as counted in `planfirst_local_capacity_total`. */
export type SlotWaitOutcome = "queued" | "refused" | "abandoned";

/** Seconds a client is told to wait after a `503 local_capacity`. */
const LOCAL_CAPACITY_RETRY_AFTER_SEC = 1;

/** The settings of one connection that decide its limit (a `ConnectionConfig` is one). */
interface SlotSettings {
  readonly id: string;
  /** Requests in flight at most; absent = unlimited (no bookkeeping at all). */
  readonly maxConcurrent?: number | undefined;
  /** Longest wait in line for a slot, milliseconds; 0 = none. */
  readonly maxQueueWaitMs: number;
}

/**
 * One request's place on a connection. It is given back exactly once: by the dispatcher's
 * `release()` after the attempt, whatever happened, unless a committed stream took it over with
 * `handOff()`; that stream gives it back with `end()` when it ends (upstream end, upstream
 * failure or client gone). Later calls do nothing.
 */
export interface ConnectionSlot {
  /** The committed stream owns the slot from now on; `release()` leaves it alone. */
  handOff(): void;
  /** Gives the slot back unless it was handed off. */
  release(): void;
  /** The owner's give-back: gives the slot back whether or not it was handed off. */
  end(): void;
}

/**
 * The slot of a connection without `maxConcurrent`: shared, and every call does nothing, so an
 * unlimited connection costs no allocation and no bookkeeping per request.
 */
export const UNLIMITED_SLOT: ConnectionSlot = {
  handOff() {},
  release() {},
  end() {},
};

/** A slot taken from a {@link ConnectionLimit}. */
class LimitedSlot implements ConnectionSlot {
  private state: "held" | "handed-off" | "given-back" = "held";

  constructor(private readonly limit: ConnectionLimit) {}

  handOff(): void {
    if (this.state === "held") this.state = "handed-off";
  }

  release(): void {
    if (this.state !== "held") return;
    this.state = "given-back";
    this.limit.giveBack();
  }

  end(): void {
    if (this.state === "given-back") return;
    this.state = "given-back";
    this.limit.giveBack();
  }
}

/** One request waiting in line; it listens to its client's signal itself (no closure). */
class SlotWaiter {
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly limit: ConnectionLimit,
    readonly signal: AbortSignalLike | undefined,
    readonly resolve: (slot: ConnectionSlot | null) => void,
    readonly reject: (error: GatewayError) => void,
  ) {}

  /** The client went away while queued: it leaves the line with nothing sent. */
  handleEvent(): void {
    this.limit.leave(this, "abandoned");
    this.reject(clientGone(null));
  }
}

function onWaitOver(waiter: SlotWaiter): void {
  waiter.limit.leave(waiter, "refused");
  waiter.resolve(null);
}

/**
 * The in-flight count of one connection with `maxConcurrent`, and its line of waiting requests
 * (first come, first served). A slot given back goes straight to the head of the line, so a
 * request arriving meanwhile cannot jump it.
 */
class ConnectionLimit {
  private inFlight = 0;
  private readonly line: SlotWaiter[] = [];

  constructor(
    public settings: SlotSettings & { readonly maxConcurrent: number },
    private readonly count: (connectionId: string, outcome: SlotWaitOutcome) => void,
  ) {}

  /**
   * New settings from a reloaded config, keeping the requests in flight and the line: a higher
   * limit lets the head of the line in at once; a lower one takes effect as slots come back.
   */
  reconfigure(settings: SlotSettings & { readonly maxConcurrent: number }): void {
    this.settings = settings;
    while (this.line.length > 0 && this.inFlight < settings.maxConcurrent) {
      this.inFlight += 1;
      this.giveBack();
    }
  }

  /** Requests holding a slot now. */
  get inUse(): number {
    return this.inFlight;
  }

  /** Requests waiting in line now. */
  get queued(): number {
    return this.line.length;
  }

  /** A slot now, or null when every slot is taken. */
  tryTake(): ConnectionSlot | null {
    // A non-empty line means every slot is taken: give-backs go to the line first.
    if (this.inFlight >= this.settings.maxConcurrent) return null;
    this.inFlight += 1;
    return new LimitedSlot(this);
  }

  /**
   * A slot once one is free, in arrival order; null when none was free within `maxQueueWaitMs`
   * (the caller answers {@link localCapacityError}). Rejects with `client_closed_request` when
   * `signal` fires first. A request whose wait ended either way has left the line.
   */
  wait(signal: AbortSignalLike | undefined): Promise<ConnectionSlot | null> {
    const slot = this.tryTake();
    if (slot) return Promise.resolve(slot);
    if (signal?.aborted) return Promise.reject(clientGone(null));
    if (this.settings.maxQueueWaitMs === 0) {
      this.count(this.settings.id, "refused");
      return Promise.resolve(null);
    }
    return new Promise<ConnectionSlot | null>((resolve, reject) => {
      const waiter = new SlotWaiter(this, signal, resolve, reject);
      waiter.timer = setTimeout(onWaitOver, this.settings.maxQueueWaitMs, waiter);
      signal?.addEventListener("abort", waiter, { once: true });
      this.line.push(waiter);
    });
  }

  /** A slot came back: the head of the line takes it, else it is free. */
  giveBack(): void {
    const next = this.line.shift();
    if (!next) {
      this.inFlight -= 1;
      return;
    }
    this.settle(next);
    this.count(this.settings.id, "queued");
    next.resolve(new LimitedSlot(this));
  }

  /** Takes `waiter` out of the line (its wait ended without a slot). */
  leave(waiter: SlotWaiter, outcome: SlotWaitOutcome): void {
    const index = this.line.indexOf(waiter);
    if (index === -1) return;
    this.line.splice(index, 1);
    this.settle(waiter);
    this.count(this.settings.id, outcome);
  }

  private settle(waiter: SlotWaiter): void {
    clearTimeout(waiter.timer);
    waiter.signal?.removeEventListener("abort", waiter);
  }
}

/**
 * The per-connection concurrency limits (`connections[].maxConcurrent`), kept in this process:
 * each replica limits its own requests. One instance serves every generation of a gateway, so a
 * config reload keeps the requests in flight and in line of a connection that stays (see
 * {@link ConnectionSlots.configure}). Connections without a limit have no entry:
 * {@link ConnectionSlots.take} gives them {@link UNLIMITED_SLOT} after one map lookup.
 */
export class ConnectionSlots {
  private readonly limits = new Map<string, ConnectionLimit>();

  /** `count` is told how every wait for a slot ended, by connection. */
  constructor(
    connections: Iterable<SlotSettings>,
    private readonly count: (connectionId: string, outcome: SlotWaitOutcome) => void,
  ) {
    this.configure(connections);
  }

  /**
   * The limits of a (reloaded) configuration. A connection that keeps a limit keeps its count
   * of requests in flight and its line under the new settings; one that loses its limit, or
   * leaves, is unlimited from now on (the slots still held give back to the old count, which
   * nothing reads any more).
   */
  configure(connections: Iterable<SlotSettings>): void {
    const kept = new Set<string>();
    for (const connection of connections) {
      const { maxConcurrent } = connection;
      if (maxConcurrent === undefined) continue;
      kept.add(connection.id);
      const settings = { ...connection, maxConcurrent };
      const existing = this.limits.get(connection.id);
      if (existing) existing.reconfigure(settings);
      else this.limits.set(connection.id, new ConnectionLimit(settings, this.count));
    }
    for (const id of [...this.limits.keys()]) if (!kept.has(id)) this.limits.delete(id);
  }

  /** The limit of a connection with `maxConcurrent`, else undefined. */
  limitOf(connectionId: string): ConnectionLimit | undefined {
    return this.limits.get(connectionId);
  }

  /** Every connection's limit, in config order (for the metrics read at scrape time). */
  all(): Iterable<ConnectionLimit> {
    return this.limits.values();
  }

  /** A slot on the connection now: {@link UNLIMITED_SLOT} when it has no limit, null when full. */
  take(connectionId: string): ConnectionSlot | null {
    const limit = this.limits.get(connectionId);
    return limit === undefined ? UNLIMITED_SLOT : limit.tryTake();
  }

  /** {@link ConnectionLimit.wait} of the connection; {@link UNLIMITED_SLOT} without a limit. */
  wait(connectionId: string, signal: AbortSignalLike | undefined): Promise<ConnectionSlot | null> {
    const limit = this.limits.get(connectionId);
    return limit === undefined ? Promise.resolve(UNLIMITED_SLOT) : limit.wait(signal);
  }
}

/**
 * `503 local_capacity`, `Retry-After: 1`: the connection is at the concurrency limit this
 * gateway was configured with and no slot freed within `waitedMs`. It says plainly that the
 * limit is the gateway's own, so nobody reads it as the provider failing.
 */
export function localCapacityError(
  settings: SlotSettings,
  waitedMs: number,
  attempts?: readonly unknown[],
): GatewayError {
  const details: Record<string, unknown> = {
    connection: settings.id,
    max_concurrent: settings.maxConcurrent,
    waited_ms: waitedMs,
  };
  if (attempts && attempts.length > 0) details.attempts = attempts;
  return new GatewayError({
    code: "local_capacity",
    message:
      `connection ${settings.id} is at this gateway's own concurrency limit ` +
      `(maxConcurrent ${settings.maxConcurrent}) and no slot freed within ${waitedMs} ms; ` +
      "the upstream did not fail. Retry shortly.",
    details,
    retryAfterSec: LOCAL_CAPACITY_RETRY_AFTER_SEC,
  });
}
