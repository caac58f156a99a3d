import { assertNumberOption } from "./errors";
import { createMemoryQuotaStore } from "./memory-store";
import type { QuotaStore, QuotaStoreRecord } from "./quota-store";

/** The target that served a session's last request. */
export interface SessionPin {
  /** The connection that served it. */
  readonly connectionId: string;
  /** The upstream model that served it. */
  readonly model: string;
  /** Epoch milliseconds of the session's last served request; idle expiry counts from here. */
  readonly lastSeenMs: number;
}

/** What {@link SessionBook.pin} records: the target that served. */
export interface SessionTarget {
  readonly connectionId: string;
  readonly model: string;
}

/** Options of {@link createSessionBook}. All durations in milliseconds. */
export interface SessionBookOptions {
  /** Where pins live (the `sessions` bucket). Default: a new memory store (this process only). */
  store?: QuotaStore;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * A session with no served request for this long is forgotten. Default 3 600 000 (1 h). 0
   * turns the book off: no read, no write, no session is ever pinned.
   */
  idleTtlMs?: number;
  /**
   * Most sessions kept. Default 10 000. Past it, the least recently served are dropped; the
   * count is checked once per tenth of this many new sessions, so it can run over by that much
   * (per replica writing) between two checks.
   */
  maxEntries?: number;
}

/**
 * Session pins: which connection and model served each session's last request, keyed by the
 * session's hash (never the raw key), shared through the store (on Redis, by every replica).
 * Reads are synchronous from the store's mirror and never wait on a backend; writes go to the
 * mirror at once and to the backend as the store does (Redis in the background). Nothing throws.
 */
export interface SessionBook {
  /** False when `idleTtlMs` is 0: every read is empty and every write is ignored. */
  readonly enabled: boolean;
  /** The live pin of a session: undefined when there is none or it has been idle `idleTtlMs`. */
  pinOf(sessionHash: string): SessionPin | undefined;
  /**
   * Records that `target` served the session now. The store is written when the target changed,
   * when the session is new, or when its last write is older than a tenth of `idleTtlMs`
   * (capped at a minute), so an active session does not expire and does not write on every
   * request either.
   */
  pin(sessionHash: string, target: SessionTarget): void;
  /** Live sessions per pinned connection id (connections without one are absent). */
  liveSessions(): Map<string, number>;
}

const PIN_KEY = "pin";
const LONGEST_TOUCH_MS = 60_000;

/** Creates a session book over a quota store's `sessions` bucket. */
export function createSessionBook(options: SessionBookOptions = {}): SessionBook {
  const store = options.store ?? createMemoryQuotaStore();
  const now = options.now ?? Date.now;
  const idleTtlMs = options.idleTtlMs ?? 3_600_000;
  const maxEntries = options.maxEntries ?? 10_000;
  assertNumberOption("sessionAffinity.idleTtlMs", idleTtlMs, 0, Number.MAX_SAFE_INTEGER);
  assertNumberOption("sessionAffinity.maxEntries", maxEntries, 1, Number.MAX_SAFE_INTEGER);
  const enabled = idleTtlMs > 0;
  const touchEveryMs = Math.min(LONGEST_TOUCH_MS, Math.floor(idleTtlMs / 10));
  const sweepEvery = Math.max(1, Math.ceil(maxEntries / 10));
  let newSinceSweep = 0;

  // Stored records are replaced, never mutated, so each is parsed once per book.
  const parsed = new WeakMap<QuotaStoreRecord, SessionPin | null>();
  function pinOfRecord(record: QuotaStoreRecord): SessionPin | null {
    let pin = parsed.get(record);
    if (pin === undefined) {
      pin = parsePin(record.value);
      parsed.set(record, pin);
    }
    return pin;
  }

  function stored(sessionHash: string): SessionPin | undefined {
    const records = store.list("sessions", sessionHash);
    for (const record of records) {
      if (record.key !== PIN_KEY) continue;
      return pinOfRecord(record) ?? undefined;
    }
    return undefined;
  }

  function isLive(pin: SessionPin, nowMs: number): boolean {
    return nowMs - pin.lastSeenMs < idleTtlMs;
  }

  /** Drops idle sessions, then the least recently served past `maxEntries`. */
  function sweep(nowMs: number): void {
    newSinceSweep = 0;
    const live: { hash: string; lastSeenMs: number }[] = [];
    for (const hash of store.connectionIds("sessions")) {
      const pin = stored(hash);
      if (pin && isLive(pin, nowMs)) live.push({ hash, lastSeenMs: pin.lastSeenMs });
      else store.remove("sessions", hash, PIN_KEY);
    }
    if (live.length <= maxEntries) return;
    live.sort((a, b) => a.lastSeenMs - b.lastSeenMs);
    for (const { hash } of live.slice(0, live.length - maxEntries)) {
      store.remove("sessions", hash, PIN_KEY);
    }
  }

  return {
    enabled,
    pinOf(sessionHash) {
      if (!enabled) return undefined;
      const pin = stored(sessionHash);
      return pin && isLive(pin, now()) ? pin : undefined;
    },
    pin(sessionHash, target) {
      if (!enabled) return;
      const nowMs = now();
      const current = stored(sessionHash);
      const live = current !== undefined && isLive(current, nowMs);
      if (
        live &&
        current.connectionId === target.connectionId &&
        current.model === target.model &&
        nowMs - current.lastSeenMs < touchEveryMs
      ) {
        return;
      }
      const value: SessionPin = {
        connectionId: target.connectionId,
        model: target.model,
        lastSeenMs: nowMs,
      };
      store.put("sessions", { connectionId: sessionHash, key: PIN_KEY, rev: nowMs, value });
      if (!live && ++newSinceSweep >= sweepEvery) sweep(nowMs);
    },
    liveSessions() {
      const counts = new Map<string, number>();
      if (!enabled) return counts;
      const nowMs = now();
      for (const hash of store.connectionIds("sessions")) {
        const pin = stored(hash);
        if (pin && isLive(pin, nowMs)) {
          counts.set(pin.connectionId, (counts.get(pin.connectionId) ?? 0) + 1);
        }
      }
      return counts;
    },
  };
}

function parsePin(value: unknown): SessionPin | null {
  if (value === null || typeof value !== "object") return null;
  const raw = value as Record<string, unknown>;
  if (typeof raw.connectionId !== "string" || raw.connectionId === "") return null;
  if (typeof raw.model !== "string" || raw.model === "") return null;
  if (typeof raw.lastSeenMs !== "number" || !Number.isFinite(raw.lastSeenMs)) return null;
  return { connectionId: raw.connectionId, model: raw.model, lastSeenMs: raw.lastSeenMs };
}
