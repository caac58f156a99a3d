import type { Redis } from "ioredis";
import type { SpendStore } from "./spend-store";

/** Where the Redis spend store reports an outage and its end (pino's `warn` fits). */
export interface SpendStoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Options of {@link createRedisSpendStore}. */
export interface RedisSpendStoreOptions {
  /** Redis URL used when no `client` is given; default `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * An existing ioredis client to run commands on. The store does not quit it on `close()`; it
   * quits only the subscriber connection it duplicates from it, and adds an `error` listener.
   * Give it `commandTimeout`, `maxRetriesPerRequest: 0` and
   * `enableOfflineQueue: false` to get the store's own pipelining and outage behaviour. Other
   * commands sent on it in a turn where the store sends one leave in the same socket write, at
   * the end of that turn.
   */
  client?: Redis;
  /**
   * Prefix of every key and of the pub/sub channel; default `planfirst:spend`. Replicas that
   * share a budget use the same prefix. Keys are wrapped in a `{…}` hash tag so all of them live
   * in one Redis Cluster slot, as the scripts require.
   */
  keyPrefix?: string;
  /**
   * Deadline of one command in ms, default 250 (the store's own connections): a Redis that
   * does not answer in time counts as unreachable.
   */
  commandTimeoutMs?: number;
  /**
   * ioredis auto-pipelining on the store's own connection; default false. The store already
   * sends every command it issues in one turn of the event loop in one socket write (it corks
   * the connection for the turn), and concurrent operations are pipelined on one connection
   * either way. ioredis's auto-pipelining adds a pipeline object per turn and holds a turn's
   * commands back until the previous turn's pipeline has answered: in the ledger benchmark
   * (50 in flight) it cost more main-thread time per reserve+settle pair than the corked writes
   * (user+sys CPU 34–42 µs against 25–34) and fewer pairs per second.
   */
  autoPipelining?: boolean;
  /**
   * Least time in ms between two publishes of one window's totals by this store; default 20.
   * A change made sooner after the last publish is not published at once: one deferred publish
   * carries all of them at the end of the interval. Other replicas' mirrors (display and pool
   * building; admission is decided in Redis) then trail by at most about twice this interval,
   * and no replica reads and parses one message per reserve and per settle of every replica.
   * 0 publishes every change.
   */
  publishIntervalMs?: number;
  /** How long `ready()` waits for the first connection, in ms; default 5000. */
  readyTimeoutMs?: number;
  /**
   * SQLite file where settles and releases that cannot reach Redis are kept until it is back
   * (one per process; created when missing). Without it they are kept in process memory: an
   * outage loses nothing, a restart during one loses them.
   */
  journalPath?: string;
  /** Gets one warning when Redis becomes unreachable and one when it is back. */
  logger?: SpendStoreLogger;
}

/** A {@link SpendStore} in Redis shared by gateway replicas. */
export interface RedisSpendStore extends SpendStore {
  /** Resolves when subscribed to other replicas' updates and the mirror is loaded. */
  ready(): Promise<void>;
  /** Replays the journal when Redis is reachable; resolves when that replay is done. */
  flush(): Promise<void>;
  /** Settles and releases waiting in the journal for Redis to come back. */
  journalSize(): number;
  close(): Promise<void>;
}
