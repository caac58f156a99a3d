import { performance } from "node:perf_hooks";
import { Redis, ReplyError } from "ioredis";
import { invalidArgument, SpendLedgerError } from "./errors";
import { type BatchAnswer, type BatchOperation, createBatchQueue } from "./redis-batch";
import { batchScript, encodeOperations, isFieldSafe } from "./redis-scripts";
import {
  createMemoryJournal,
  createSqliteJournal,
  type JournalEntry,
  type SettleJournal,
} from "./settle-journal";
import { recordMatches, type SpendRecord, type SpendRecordQuery } from "./spend-record";
import type {
  SpendStore,
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreSettleRequest,
  StoreSettleResult,
  WindowTotals,
} from "./spend-store";

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

interface MirrorEntry extends WindowTotals {
  nextExpiryMs: number;
  seq: number;
}

/** The batch script's answer: a flag per operation, then the window's totals after them. */
type ScriptReply = [number[], string, string, string, number];

/**
 * A budget window's pub/sub member (JSON `[rung, windowKey]`), its script keys, and when this
 * store last published its totals (`performance.now()` ms; undefined when never).
 */
interface WindowRef {
  member: string;
  keys: string[];
  publishedAt: number | undefined;
}

/** Bound of the per-window caches; far above the windows a gateway has at once. */
const maxCachedWindows = 1024;

type ScriptCommand = (...args: Array<string | number>) => Promise<ScriptReply>;

const batchCommand = "planfirstSpendBatch";

const silentLogger: SpendStoreLogger = { warn: () => {} };

/** The connection-level facts of an ioredis error, never a URL or a password. */
function describeCause(cause: unknown): Record<string, unknown> {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { error: cause.name, ...(typeof code === "string" ? { code } : {}) };
  }
  return { error: String(cause) };
}

/**
 * A spend store in Redis. Each operation is at most ONE round trip: the reserves, settles and
 * releases issued for a budget window in one turn of the event loop run in one Lua script call,
 * atomically and in order (see redis-scripts.ts and redis-batch.ts; under load, while two calls
 * are unanswered, the next call waits and carries several turns' operations), so any number of
 * replicas share one budget exactly; the calls of a turn leave in one socket write on one
 * connection (see `autoPipelining`). The ledger's synchronous reads come from an
 * in-memory mirror of each window's totals, updated from the replies of this store's own
 * scripts and from the totals other replicas publish on pub/sub (ordered by a per-window
 * sequence number, so a late message never overwrites newer state; a burst of changes is
 * published once, see `publishIntervalMs`); `ready()` loads it and it
 * is reloaded after a reconnect. The mirror answers null (unknown) until `ready()` has
 * completed. When a mirrored reservation's expiry passes, the next read triggers a refresh
 * script; until its reply arrives the mirror still counts that reservation (the safe side).
 *
 * Outages: a command has a short deadline and is never queued or retried while Redis is away,
 * so a `reserve` then rejects at once with `store_unavailable` (the caller refuses or skips the
 * paid rung; nothing is admitted that Redis has not counted). A `settle` or `release` that
 * cannot reach Redis goes to the journal and resolves (`journaled`); the journal is replayed
 * when Redis is back, and replay is idempotent because the scripts finish a reservation id at
 * most once. A reservation whose settle never arrives (a replica that died) expires with its
 * `expiresAtMs`.
 */
export function createRedisSpendStore(options: RedisSpendStoreOptions = {}): RedisSpendStore {
  const {
    keyPrefix = "planfirst:spend",
    commandTimeoutMs = 250,
    readyTimeoutMs = 5000,
    autoPipelining = false,
    publishIntervalMs = 20,
    logger = silentLogger,
  } = options;
  const ownsClient = options.client === undefined;
  const client =
    options.client ??
    new Redis(options.url ?? "redis://127.0.0.1:6379", {
      // Fail fast instead of queueing: a request must not stall behind an outage (and a
      // reserve that might still run later only over-counts until it expires).
      enableAutoPipelining: autoPipelining,
      commandTimeout: commandTimeoutMs,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: Math.max(1000, commandTimeoutMs),
      retryStrategy: (times) => Math.min(times * 50, 500),
    });
  // Pub/sub lives on its own connection; it reconnects and resubscribes by itself.
  const subscriber = client.duplicate({ enableAutoPipelining: false, commandTimeout: undefined });
  const journal: SettleJournal = options.journalPath
    ? createSqliteJournal(options.journalPath)
    : createMemoryJournal();
  const base = `{${keyPrefix}}`;
  const channel = `${base}:events`;
  const windowsKey = `${base}:windows`;
  const recordsKey = `${base}:records`;

  client.defineCommand(batchCommand, { numberOfKeys: 6, lua: batchScript });
  // Every command issued during one turn of the event loop leaves in one socket write: the
  // script calls of several windows, a refresh, a deferred publish. The connection is corked at
  // the first of them and uncorked once the turn's callbacks have run (process.nextTick), so
  // nothing waits longer than that turn, and the command deadline and outage rules are unchanged.
  let corked: Redis["stream"] | undefined;
  const uncork = () => {
    const stream = corked;
    corked = undefined;
    stream?.uncork();
  };
  const batchTurn = () => {
    if (corked !== undefined || client.status !== "ready") return;
    corked = client.stream;
    corked.cork();
    process.nextTick(uncork);
  };
  const script = (client as unknown as Record<string, ScriptCommand>)[batchCommand]!;
  const runScript: ScriptCommand = (...args) => {
    batchTurn();
    return script.apply(client, args);
  };

  const mirror = new Map<string, MirrorEntry>();
  const refreshing = new Set<string>();
  let loaded = false;
  let closed = false;
  let readyPromise: Promise<void> | undefined;

  // One warning when Redis goes away, one when it is back, however many errors in between.
  let reachable = true;
  const markDown = (cause: unknown) => {
    if (closed || !reachable) return;
    reachable = false;
    logger.warn(
      { store: "redis", ...describeCause(cause) },
      "spend store unreachable: paid reservations are refused (store_unavailable) and settles are journaled until it is back",
    );
  };
  const markUp = () => {
    if (closed || reachable) return;
    reachable = true;
    logger.warn(
      { store: "redis", journaled: journal.size() },
      "spend store reachable again: replaying journaled settles",
    );
  };

  const unavailable = (operation: string, cause?: unknown) =>
    new SpendLedgerError({
      code: "store_unavailable",
      message: `Redis spend store: ${operation} failed, Redis is unreachable`,
      cause,
    });

  const windowKeys = (member: string) => {
    const win = `${base}:win:${member}`;
    return [win, `${win}:live`, `${win}:amounts`, `${win}:done`, windowsKey, recordsKey];
  };
  // A window's member and keys are built once, not on every operation. Windows are few (one per
  // rung per budget period); the map is emptied if it ever grows past that.
  const windowRefs = new Map<string, Map<string, WindowRef>>();
  const windowOf = (rung: string, windowKey: string): WindowRef => {
    let ofRung = windowRefs.get(rung);
    if (!ofRung) {
      if (windowRefs.size >= maxCachedWindows) windowRefs.clear();
      ofRung = new Map();
      windowRefs.set(rung, ofRung);
    }
    let ref = ofRung.get(windowKey);
    if (!ref) {
      if (ofRung.size >= maxCachedWindows) ofRung.clear();
      const member = JSON.stringify([rung, windowKey]);
      ref = { member, keys: windowKeys(member), publishedAt: undefined };
      ofRung.set(windowKey, ref);
    }
    return ref;
  };

  // Publishes are folded per window (see `publishIntervalMs`): the first change after a quiet
  // interval is published by its own script, later ones within the interval are not, and one
  // refresh script publishes the totals as they are at the end of it. This is safe because a
  // publish carries the window's whole totals with their sequence number, never a delta: the
  // deferred one supersedes every change it covers, and a replica that missed the skipped ones
  // has lost nothing. Admission never reads a mirror; a replica that has not yet seen a
  // change gets the exact totals in the reply of its own next script.
  /** Windows with a change not yet published, with the newest `nowMs` used on each. */
  const unpublished = new Map<string, { ref: WindowRef; nowMs: number }>();
  let publishTimer: ReturnType<typeof setTimeout> | undefined;

  const channelFor = (ref: WindowRef, nowMs: number): string => {
    if (publishIntervalMs <= 0) return channel;
    const at = performance.now();
    if (ref.publishedAt === undefined || at - ref.publishedAt >= publishIntervalMs) {
      ref.publishedAt = at;
      return channel;
    }
    const pending = unpublished.get(ref.member);
    if (!pending) unpublished.set(ref.member, { ref, nowMs });
    else if (nowMs > pending.nowMs) pending.nowMs = nowMs;
    schedulePublish();
    return "";
  };

  const schedulePublish = () => {
    if (publishTimer !== undefined || closed) return;
    publishTimer = setTimeout(() => {
      publishTimer = undefined;
      void publishDeferred();
    }, publishIntervalMs);
    publishTimer.unref();
  };

  // The deferred publish expires reservations with the newest clock an operation on that window
  // already used, never a clock of its own (the ledger's clock is injected).
  const publishDeferred = async () => {
    if (unpublished.size === 0 || client.status !== "ready") return;
    const due = [...unpublished.values()];
    unpublished.clear();
    const at = performance.now();
    await Promise.all(
      due.map(({ ref, nowMs }) => {
        ref.publishedAt = at;
        return runBatch(ref, channel, true, [
          refreshOperation(nowMs, () => {
            // Redis did not answer: try again after the interval (or once it is back).
            if (!unpublished.has(ref.member)) unpublished.set(ref.member, { ref, nowMs });
            schedulePublish();
          }),
        ]);
      }),
    );
  };

  const apply = (member: string, spent: string, reserved: string, next: string, seq: number) => {
    const current = mirror.get(member);
    if (current && current.seq >= seq) return current;
    const entry: MirrorEntry = {
      spentMicroUsd: Number(spent),
      reservedMicroUsd: Number(reserved),
      nextExpiryMs: next === "" ? Number.POSITIVE_INFINITY : Number(next),
      seq,
    };
    mirror.set(member, entry);
    return entry;
  };

  /**
   * One script call for window `ref`: `operations` in order, then the window's totals go to the
   * mirror and every operation is answered with its flag and those totals. Never rejects: a
   * failed call rejects each operation with its error.
   */
  const runBatch = async (
    ref: WindowRef,
    channelArg: string,
    publishAlways: boolean,
    operations: readonly BatchOperation[],
  ): Promise<void> => {
    let reply: ScriptReply;
    try {
      reply = await runScript(
        ...ref.keys,
        channelArg,
        ref.member,
        publishAlways ? "1" : "0",
        encodeOperations(operations),
      );
    } catch (error) {
      for (const operation of operations) operation.reject(error);
      return;
    }
    const [flags, spent, reserved, next, seq] = reply;
    apply(ref.member, spent, reserved, next, Number(seq));
    const spentMicroUsd = Number(spent);
    const reservedMicroUsd = Number(reserved);
    for (let index = 0; index < operations.length; index++) {
      const flag = Number(flags[index]) === 1;
      operations[index]!.resolve({ flag, spentMicroUsd, reservedMicroUsd });
    }
  };

  const refreshOperation = (nowMs: number, onError: () => void): BatchOperation => ({
    kind: "x",
    nowMs,
    args: ["", "", "", ""],
    resolve: () => {},
    reject: onError,
  });

  // A reserve, settle or release waits in the queue for its window's next script call: one call
  // per window carries everything queued when it leaves (see redis-batch.ts for when that is).
  const queue = createBatchQueue<WindowRef>((ref, operations) => {
    let nowMs = 0;
    for (const operation of operations) if (operation.nowMs > nowMs) nowMs = operation.nowMs;
    return runBatch(ref, channelFor(ref, nowMs), false, operations);
  });
  const submit = (
    request: { rung: string; windowKey: string; nowMs: number },
    kind: BatchOperation["kind"],
    args: BatchOperation["args"],
    urgent: boolean,
  ): Promise<BatchAnswer> =>
    new Promise((resolve, reject) =>
      queue.add(
        windowOf(request.rung, request.windowKey),
        { kind, nowMs: request.nowMs, args, resolve, reject },
        urgent,
      ),
    );

  const loadAll = async () => {
    const members = await client.smembers(windowsKey);
    if (members.length === 0) return;
    const pipeline = client.pipeline();
    for (const member of members) {
      const [win, live] = windowKeys(member);
      pipeline.hmget(win!, "spent", "reserved", "seq");
      pipeline.zrange(live!, 0, 0, "WITHSCORES");
    }
    const replies = (await pipeline.exec()) ?? [];
    members.forEach((member, index) => {
      const [hashError, hash] = replies[index * 2] ?? [];
      const [zsetError, first] = replies[index * 2 + 1] ?? [];
      if (hashError || zsetError) throw hashError ?? zsetError;
      const [spent, reserved, seq] = hash as Array<string | null>;
      const next = (first as string[])[1] ?? "";
      apply(member, spent ?? "0", reserved ?? "0", next, Number(seq ?? 0));
    });
  };

  const settleOnRedis = (
    request: StoreSettleRequest,
    urgent: boolean,
  ): Promise<StoreSettleResult> => {
    const { record } = request;
    return submit(
      request,
      "s",
      [
        request.reservationId,
        String(record.costMicroUsd),
        Date.parse(record.time),
        // An empty record books the cost and keeps no record (see `keepRecord`).
        request.keepRecord === false ? "" : JSON.stringify(record),
      ],
      urgent,
    ).then((answer) => ({
      booked: answer.flag,
      spentMicroUsd: answer.spentMicroUsd,
      reservedMicroUsd: answer.reservedMicroUsd,
    }));
  };

  const releaseOnRedis = (
    request: StoreReleaseRequest,
    urgent: boolean,
  ): Promise<StoreReleaseResult> =>
    submit(request, "l", [request.reservationId, "", "", ""], urgent).then((answer) => ({
      released: answer.flag,
      spentMicroUsd: answer.spentMicroUsd,
      reservedMicroUsd: answer.reservedMicroUsd,
    }));

  // Replays the journal, oldest first, pipelined; an entry leaves the journal only once Redis
  // has run its script (booked, or already finished: replay never books twice).
  let replaying: Promise<void> | null = null;
  const replay = (): Promise<void> => {
    if (replaying) return replaying;
    if (journal.size() === 0 || closed) return Promise.resolve();
    replaying = (async () => {
      const entries = journal.entries();
      await Promise.all(
        entries.map(async (entry: JournalEntry) => {
          try {
            if (entry.kind === "settle") await settleOnRedis(entry.request, true);
            else await releaseOnRedis(entry.request, true);
            journal.remove(entry.request.reservationId);
          } catch (cause) {
            if (!(cause instanceof ReplyError)) markDown(cause);
          }
        }),
      );
    })().finally(() => {
      replaying = null;
    });
    return replaying;
  };

  client.on("error", markDown);
  client.on("close", () => markDown(new Error("connection closed")));
  client.on("ready", () => {
    markUp();
    if (loaded) {
      void replay();
      // The replayed settles leave now, ahead of the deferred publish: their own script call
      // then publishes them at once instead of one publish interval later.
      void queue.flush();
      void publishDeferred();
    }
  });
  // Errors of the subscriber connection are the same outage; the client reports it.
  subscriber.on("error", () => {});

  subscriber.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    try {
      const event = JSON.parse(message) as {
        w: string;
        s: string;
        r: string;
        n: string;
        q: number;
      };
      apply(event.w, event.s, event.r, event.n, Number(event.q));
    } catch {
      // A malformed message cannot come from our scripts; ignore it rather than crash.
    }
  });
  let subscribedOnce = false;
  subscriber.on("ready", () => {
    // After a reconnect, messages published while disconnected are gone: reload the totals.
    if (subscribedOnce && !closed) loadAll().catch(markDown);
  });

  const connected = (connection: Redis): Promise<void> => {
    if (connection.status === "ready") return Promise.resolve();
    if (connection.status === "wait") void connection.connect().catch(() => {});
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        connection.off("ready", onReady);
        reject(new Error(`no connection within ${readyTimeoutMs} ms`));
      }, readyTimeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      connection.once("ready", onReady);
    });
  };

  const ready = () => {
    readyPromise ??= (async () => {
      try {
        await Promise.all([connected(client), connected(subscriber)]);
        await subscriber.subscribe(channel);
        subscribedOnce = true;
        await loadAll();
        loaded = true;
      } catch (cause) {
        readyPromise = undefined;
        if (cause instanceof ReplyError) {
          throw new SpendLedgerError({
            code: "store_failure",
            message: "Redis spend store: cannot load state",
            cause,
          });
        }
        markDown(cause);
        throw unavailable("loading state", cause);
      }
      // What an earlier run journaled is booked now.
      void replay();
    })();
    return readyPromise;
  };

  /** What `run` does once loaded: `body`, then the outage bookkeeping and error mapping. */
  const runLoaded = <T>(operation: string, body: () => Promise<T>): Promise<T> =>
    body().then(
      (result) => {
        if (!reachable) {
          // Back without a reconnect (it had only stopped answering): end the outage here.
          markUp();
          void replay();
        }
        return result;
      },
      (cause: unknown) => {
        if (cause instanceof ReplyError) {
          throw new SpendLedgerError({
            code: "store_failure",
            message: `Redis spend store: ${operation} failed`,
            cause,
          });
        }
        markDown(cause);
        throw unavailable(operation, cause);
      },
    );

  /**
   * Runs one script: at once unavailable when Redis is away, never queued. One promise chain
   * rather than nested async functions, and no named closure per call: every reserve and
   * settle passes here.
   */
  const run = <T>(operation: string, body: () => Promise<T>): Promise<T> => {
    if (closed) {
      return Promise.reject(
        new SpendLedgerError({ code: "store_failure", message: "Redis spend store is closed" }),
      );
    }
    // Redis went away (or never answered): refuse now rather than queue behind the outage. Only
    // the very first connection, not yet known to fail, is waited for (up to readyTimeoutMs).
    if (client.status !== "ready" && (loaded || !reachable)) {
      return Promise.reject(unavailable(operation));
    }
    if (loaded) return runLoaded(operation, body);
    return ready().then(() => runLoaded(operation, body));
  };

  const lastKnown = (rung: string, windowKey: string): WindowTotals => {
    const entry = mirror.get(windowOf(rung, windowKey).member);
    return {
      spentMicroUsd: entry?.spentMicroUsd ?? 0,
      reservedMicroUsd: entry?.reservedMicroUsd ?? 0,
    };
  };

  /** A finishing write Redis did not take goes to the journal (when the cause is an outage). */
  const journaling = <T>(
    entry: JournalEntry,
    deliver: () => Promise<T>,
    journaled: (added: boolean) => T,
  ): Promise<T> =>
    run(entry.kind, deliver).catch((error: unknown) => {
      if (!SpendLedgerError.isInstance(error) || error.code !== "store_unavailable") throw error;
      let added: boolean;
      try {
        added = journal.add(entry);
      } catch (cause) {
        throw new SpendLedgerError({
          code: "store_failure",
          message: `Redis spend store: ${entry.kind} could not reach Redis nor the journal`,
          cause,
        });
      }
      return journaled(added);
    });

  const refresh = (rung: string, windowKey: string, nowMs: number) => {
    const ref = windowOf(rung, windowKey);
    const { member } = ref;
    if (refreshing.has(member) || closed || client.status !== "ready") return;
    refreshing.add(member);
    void runBatch(ref, channel, false, [refreshOperation(nowMs, () => {})]).then(() =>
      refreshing.delete(member),
    );
  };

  /**
   * Null when `id` can travel in the batch script's operations (see `encodeOperations`), else
   * the `invalid_argument` rejection that refuses the operation before anything is sent.
   */
  const unsafeId = (id: string): Promise<never> | null =>
    isFieldSafe(id)
      ? null
      : new Promise<never>(() =>
          invalidArgument("request.reservationId", "an id without a line break", id),
        );

  return {
    ready,
    reserve: (request) =>
      unsafeId(request.reservationId) ??
      run("reserve", () =>
        submit(
          request,
          "r",
          [
            request.reservationId,
            String(request.amountMicroUsd),
            request.budgetMicroUsd === null ? "" : String(request.budgetMicroUsd),
            request.expiresAtMs,
          ],
          true,
        ).then((answer) => ({
          admitted: answer.flag,
          spentMicroUsd: answer.spentMicroUsd,
          reservedMicroUsd: answer.reservedMicroUsd,
        })),
      ),
    // Nobody waits for a settle or release: it goes with the next reserve's script call (or
    // after SETTLE_DELAY_MS, see there why that is safe).
    settle: (request): Promise<StoreSettleResult> =>
      unsafeId(request.reservationId) ??
      journaling(
        { kind: "settle", request },
        () => settleOnRedis(request, false),
        (added) => ({
          booked: added,
          journaled: added,
          ...lastKnown(request.rung, request.windowKey),
        }),
      ),
    release: (request): Promise<StoreReleaseResult> =>
      unsafeId(request.reservationId) ??
      journaling(
        { kind: "release", request },
        () => releaseOnRedis(request, false),
        (added) => ({ released: added, ...lastKnown(request.rung, request.windowKey) }),
      ),
    totals(rung, windowKey, nowMs) {
      if (!loaded) return null;
      const entry = mirror.get(windowOf(rung, windowKey).member);
      if (!entry) return { spentMicroUsd: 0, reservedMicroUsd: 0 };
      if (entry.nextExpiryMs <= nowMs) refresh(rung, windowKey, nowMs);
      return { spentMicroUsd: entry.spentMicroUsd, reservedMicroUsd: entry.reservedMicroUsd };
    },
    records: (query: SpendRecordQuery) =>
      run("records", async () => {
        const min = query.sinceMs === undefined ? "-inf" : String(query.sinceMs);
        const max = query.untilMs === undefined ? "+inf" : `(${query.untilMs}`;
        const members = await client.zrangebyscore(recordsKey, min, max);
        return members
          .map((member) => JSON.parse(member) as SpendRecord)
          .filter((record) => recordMatches(record, Date.parse(record.time), query));
      }),
    async flush() {
      await queue.flush();
      if (client.status === "ready" && loaded) await replay();
    },
    journalSize: () => journal.size(),
    async close() {
      if (closed) return;
      // What waits in the queue goes now (to Redis, or to the journal).
      await queue.flush();
      if (client.status === "ready" && loaded) await replay();
      // Other replicas get the totals of this store's last changes before it goes.
      clearTimeout(publishTimer);
      publishTimer = undefined;
      await publishDeferred();
      closed = true;
      const left = journal.size();
      if (left > 0 && !options.journalPath) {
        logger.warn(
          { store: "redis", journaled: left },
          "spend store closed with settles Redis never received; they are not booked",
        );
      }
      journal.close();
      await subscriber.quit().catch(() => subscriber.disconnect());
      if (ownsClient) await client.quit().catch(() => client.disconnect());
    },
  };
}
