import { ReplyError } from "ioredis";
import { invalidArgument, SpendLedgerError } from "./errors";
import { connectRedis, whenConnected } from "./redis-connection";
import { redisKeyLayout } from "./redis-keys";
import { minuteGroups, minuteSumsFrom, recentMinuteGroups } from "./redis-minute-sums";
import { applyPublished, loadMirror, type WindowMirror } from "./redis-mirror";
import { createRedisOperations } from "./redis-operations";
import { createOutageLog, unavailable } from "./redis-outage";
import { pruneRedisHistory } from "./redis-prune";
import { createPublishFolding } from "./redis-publish";
import { recordPages } from "./redis-record-pages";
import { createJournalReplay } from "./redis-replay";
import { defineBatchScript, refreshOperation } from "./redis-script-call";
import { isFieldSafe } from "./redis-scripts";
import type {
  RedisSpendStore,
  RedisSpendStoreOptions,
  SpendStoreLogger,
} from "./redis-store-options";
import {
  createMemoryJournal,
  createSqliteJournal,
  type JournalEntry,
  type SettleJournal,
} from "./settle-journal";
import { MINUTE, minuteOf, minuteSpans } from "./spend-minutes";
import {
  type RecordGroup,
  type SpendRecord,
  type SpendRecordQuery,
  summarize,
  summaryOfGroups,
} from "./spend-record";
import type { StoreReleaseResult, StoreSettleResult, WindowTotals } from "./spend-store";

export type {
  RedisSpendStore,
  RedisSpendStoreOptions,
  SpendStoreLogger,
} from "./redis-store-options";

const silentLogger: SpendStoreLogger = { warn: () => {} };

/**
 * Minutes before the one now running whose records may still be landing when a summary reads
 * them (a settle reaches Redis after its instant; a replica's clock may run behind): a summary
 * checks each of them on its own (see `summary`).
 */
const RECENT_MINUTES = 2;

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
    connectRedis(options.url ?? "redis://127.0.0.1:6379", commandTimeoutMs, autoPipelining);
  // Pub/sub lives on its own connection; it reconnects and resubscribes by itself.
  const subscriber = client.duplicate({ enableAutoPipelining: false, commandTimeout: undefined });
  const journal: SettleJournal = options.journalPath
    ? createSqliteJournal(options.journalPath)
    : createMemoryJournal();
  const layout = redisKeyLayout(keyPrefix);
  const { channel, recordsKey, windowOf } = layout;

  const mirror: WindowMirror = new Map();
  const runBatch = defineBatchScript(client, mirror);
  const refreshing = new Set<string>();
  let loaded = false;
  let closed = false;
  let readyPromise: Promise<void> | undefined;
  const isClosed = () => closed;

  const outage = createOutageLog(logger, journal, isClosed);
  const { markDown, markUp } = outage;

  const publishing = createPublishFolding({
    client,
    channel,
    publishIntervalMs,
    runBatch,
    isClosed,
  });

  const operations = createRedisOperations({ runBatch, publishing, windowOf });
  const loadAll = () => loadMirror(client, layout, mirror);

  const replay = createJournalReplay({
    journal,
    settle: (request) => operations.settle(request, true),
    release: (request) => operations.release(request, true),
    isClosed,
    markDown,
  });

  client.on("error", markDown);
  client.on("close", () => markDown(new Error("connection closed")));
  client.on("ready", () => {
    markUp();
    if (loaded) {
      void replay();
      // The replayed settles leave now, ahead of the deferred publish: their own script call
      // then publishes them at once instead of one publish interval later.
      void operations.flush();
      void publishing.publishDeferred();
    }
  });
  // Errors of the subscriber connection are the same outage; the client reports it.
  subscriber.on("error", () => {});

  subscriber.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    applyPublished(mirror, message);
  });
  let subscribedOnce = false;
  subscriber.on("ready", () => {
    // After a reconnect, messages published while disconnected are gone: reload the totals,
    // but only once the channel is subscribed again. This event comes before ioredis sends
    // its own resubscribe, so a reload started here could read the totals before another
    // replica's change and the subscription start after that replica's message: this replica
    // would keep the older totals until the window's next change. Subscribing first (twice is
    // harmless) and reloading on its answer leaves no such gap; a message that arrives
    // meanwhile and the reload agree, the sequence number orders them.
    if (subscribedOnce && !closed) {
      subscriber
        .subscribe(channel)
        .then(() => loadAll())
        .catch(markDown);
    }
  });

  const ready = () => {
    readyPromise ??= (async () => {
      try {
        await Promise.all([
          whenConnected(client, readyTimeoutMs),
          whenConnected(subscriber, readyTimeoutMs),
        ]);
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
        if (!outage.reachable) {
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
    if (client.status !== "ready" && (loaded || !outage.reachable)) {
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
      unsafeId(request.reservationId) ?? run("reserve", () => operations.reserve(request)),
    // Nobody waits for a settle or release: it goes with the next reserve's script call (or
    // after SETTLE_DELAY_MS, see there why that is safe).
    settle: (request): Promise<StoreSettleResult> =>
      unsafeId(request.reservationId) ??
      journaling(
        { kind: "settle", request },
        () => operations.settle(request, false),
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
        () => operations.release(request, false),
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
        const records: SpendRecord[] = [];
        for await (const page of recordPages(client, recordsKey, query)) records.push(...page);
        return records;
      }),
    summary: (query: SpendRecordQuery) =>
      run("summary", async () => {
        // Whole minutes from their sums, the rest from the records (see spend-minutes.ts); every
        // read page by page, so a long window is never held in memory whole. The minute now
        // running and the RECENT_MINUTES before it (by this process's clock) are left out of
        // the paged read: settles still land in them while the sums are read (a settle goes to
        // Redis after its instant, a replica's clock may run behind), and would make the count
        // below disagree with the sums, and send the whole range to its records.
        const from = await minuteSumsFrom(client, layout);
        const running = minuteOf(Date.now());
        const recent = running - RECENT_MINUTES * MINUTE;
        const { minutes, records } =
          from === null ? { minutes: null, records: [query] } : minuteSpans(query, from, recent);
        let groups: RecordGroup[] = [];
        if (minutes !== null) {
          const sums = await minuteGroups(client, layout, minutes);
          // The sums stand for those minutes only when they count every record there: a
          // replica of an earlier version books records without sums (and records are never
          // taken out, so a record booked meanwhile can only make the count larger). Otherwise
          // those minutes are read from the records too.
          const until = minutes.untilMs === undefined ? "+inf" : `(${minutes.untilMs}`;
          const recorded = await client.zcount(recordsKey, String(minutes.sinceMs), until);
          if (recorded === sums.requests) groups = sums.groups;
          else records.push(minutes);
        }
        // The recent minutes the range holds whole: each one's sums and its record count are
        // read at one instant, so the same check holds however fast settles land, and a minute
        // that fails it is the only one read from its records. They lie in the one span of
        // records that reaches past `recent` (the range's end, or all of it).
        const at =
          from === null
            ? -1
            : records.findIndex((span) => span.untilMs === undefined || span.untilMs > recent);
        const tail = records[at];
        if (tail) {
          const recentRead = await recentMinuteGroups(client, layout, tail, from!, recent, running);
          groups = groups.concat(recentRead.groups);
          records.splice(at, 1, ...recentRead.rest);
        }
        const summary = summaryOfGroups(groups);
        for (const span of records) {
          for await (const page of recordPages(client, recordsKey, span)) summarize(page, summary);
        }
        return summary;
      }),
    prune: (beforeMs, pruneOptions) =>
      run("prune", () => pruneRedisHistory(client, layout, mirror, beforeMs, pruneOptions?.signal)),
    async flush() {
      await operations.flush();
      if (client.status === "ready" && loaded) await replay();
    },
    journalSize: () => journal.size(),
    async close() {
      if (closed) return;
      // What waits in the queue goes now (to Redis, or to the journal).
      await operations.flush();
      if (client.status === "ready" && loaded) await replay();
      // Other replicas get the totals of this store's last changes before it goes.
      publishing.cancelTimer();
      await publishing.publishDeferred();
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
