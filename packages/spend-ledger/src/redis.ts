import { Redis } from "ioredis";
import { SpendLedgerError } from "./errors";
import { refreshScript, releaseScript, reserveScript, settleScript } from "./redis-scripts";
import { recordMatches, type SpendRecord, type SpendRecordQuery } from "./spend-record";
import type { SpendStore, WindowTotals } from "./spend-store";

/** Options of {@link createRedisSpendStore}. */
export interface RedisSpendStoreOptions {
  /** Redis URL used when no `client` is given; default `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * An existing ioredis client to run commands on. The store does not quit it on `close()`; it
   * quits only the subscriber connection it duplicates from it.
   */
  client?: Redis;
  /**
   * Prefix of every key and of the pub/sub channel; default `planfirst:spend`. Replicas that
   * share a budget use the same prefix. Keys are wrapped in a `{…}` hash tag so all of them live
   * in one Redis Cluster slot, as the scripts require.
   */
  keyPrefix?: string;
}

/** A {@link SpendStore} in Redis shared by gateway replicas. */
export interface RedisSpendStore extends SpendStore {
  /** Resolves when subscribed to other replicas' updates and the mirror is loaded. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface MirrorEntry extends WindowTotals {
  nextExpiryMs: number;
  seq: number;
}

type ScriptReply = [number, string, string, string, number];

type ScriptCommand = (...args: Array<string | number>) => Promise<ScriptReply>;

const commandNames = {
  reserve: "planfirstSpendReserve",
  settle: "planfirstSpendSettle",
  release: "planfirstSpendRelease",
  refresh: "planfirstSpendRefresh",
} as const;

/**
 * A spend store in Redis. Each reserve is ONE Lua script (expire stale reservations, check the
 * budget, insert), and settle and release are one script each, so any number of replicas share
 * one budget exactly. The ledger's synchronous reads come from an in-memory mirror of each
 * window's totals, updated from the replies of this store's own scripts and from the totals
 * other replicas publish on pub/sub (ordered by a per-window sequence number, so a late message
 * never overwrites newer state); `ready()` loads it and it is reloaded after a reconnect. The
 * mirror answers null (unknown) until `ready()` has completed. When a mirrored reservation's
 * expiry passes, the next read triggers a refresh script; until its reply arrives the mirror
 * still counts that reservation (overstates reserved, the safe side).
 */
export function createRedisSpendStore(options: RedisSpendStoreOptions = {}): RedisSpendStore {
  const { keyPrefix = "planfirst:spend" } = options;
  const ownsClient = options.client === undefined;
  const client = options.client ?? new Redis(options.url ?? "redis://127.0.0.1:6379");
  const subscriber = client.duplicate();
  const base = `{${keyPrefix}}`;
  const channel = `${base}:events`;
  const windowsKey = `${base}:windows`;
  const recordsKey = `${base}:records`;

  client.defineCommand(commandNames.reserve, { numberOfKeys: 5, lua: reserveScript });
  client.defineCommand(commandNames.settle, { numberOfKeys: 6, lua: settleScript });
  client.defineCommand(commandNames.release, { numberOfKeys: 5, lua: releaseScript });
  client.defineCommand(commandNames.refresh, { numberOfKeys: 5, lua: refreshScript });
  const command = (name: keyof typeof commandNames): ScriptCommand => {
    const fn = (client as unknown as Record<string, ScriptCommand>)[commandNames[name]]!;
    return fn.bind(client);
  };
  const scripts = {
    reserve: command("reserve"),
    settle: command("settle"),
    release: command("release"),
    refresh: command("refresh"),
  };

  const mirror = new Map<string, MirrorEntry>();
  const refreshing = new Set<string>();
  let loaded = false;
  let closed = false;
  let readyPromise: Promise<void> | undefined;

  const memberOf = (rung: string, windowKey: string) => JSON.stringify([rung, windowKey]);
  const windowKeys = (member: string) => {
    const win = `${base}:win:${member}`;
    return [win, `${win}:live`, `${win}:amounts`, `${win}:done`, windowsKey];
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

  const applyReply = (member: string, reply: ScriptReply) => {
    const [flag, spent, reserved, next, seq] = reply;
    apply(member, spent, reserved, next, Number(seq));
    return {
      flag: Number(flag) === 1,
      spentMicroUsd: Number(spent),
      reservedMicroUsd: Number(reserved),
    };
  };

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
    if (subscribedOnce && !closed) loadAll().catch(() => {});
  });

  const ready = () => {
    readyPromise ??= (async () => {
      try {
        await subscriber.subscribe(channel);
        subscribedOnce = true;
        await loadAll();
        loaded = true;
      } catch (cause) {
        readyPromise = undefined;
        throw new SpendLedgerError({
          code: "store_failure",
          message: "Redis spend store: cannot load state",
          cause,
        });
      }
    })();
    return readyPromise;
  };

  const run = async <T>(operation: string, body: () => Promise<T>): Promise<T> => {
    await ready();
    try {
      return await body();
    } catch (cause) {
      throw new SpendLedgerError({
        code: "store_failure",
        message: `Redis spend store: ${operation} failed`,
        cause,
      });
    }
  };

  const refresh = (rung: string, windowKey: string, nowMs: number) => {
    const member = memberOf(rung, windowKey);
    if (refreshing.has(member) || closed) return;
    refreshing.add(member);
    scripts
      .refresh(...windowKeys(member), nowMs, channel, member)
      .then((reply) => applyReply(member, reply))
      .catch(() => {})
      .finally(() => refreshing.delete(member));
  };

  return {
    ready,
    reserve: (request) =>
      run("reserve", async () => {
        const member = memberOf(request.rung, request.windowKey);
        const reply = await scripts.reserve(
          ...windowKeys(member),
          request.nowMs,
          channel,
          member,
          request.reservationId,
          String(request.amountMicroUsd),
          request.budgetMicroUsd === null ? "" : String(request.budgetMicroUsd),
          request.expiresAtMs,
        );
        const { flag, ...totals } = applyReply(member, reply);
        return { admitted: flag, ...totals };
      }),
    settle: (request) =>
      run("settle", async () => {
        const member = memberOf(request.rung, request.windowKey);
        const reply = await scripts.settle(
          ...windowKeys(member),
          recordsKey,
          request.nowMs,
          channel,
          member,
          request.reservationId,
          String(request.record.costMicroUsd),
          Date.parse(request.record.time),
          JSON.stringify(request.record),
        );
        const { flag, ...totals } = applyReply(member, reply);
        return { booked: flag, ...totals };
      }),
    release: (request) =>
      run("release", async () => {
        const member = memberOf(request.rung, request.windowKey);
        const reply = await scripts.release(
          ...windowKeys(member),
          request.nowMs,
          channel,
          member,
          request.reservationId,
        );
        const { flag, ...totals } = applyReply(member, reply);
        return { released: flag, ...totals };
      }),
    totals(rung, windowKey, nowMs) {
      if (!loaded) return null;
      const entry = mirror.get(memberOf(rung, windowKey));
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
    async close() {
      closed = true;
      await subscriber.quit().catch(() => subscriber.disconnect());
      if (ownsClient) await client.quit().catch(() => client.disconnect());
    },
  };
}
