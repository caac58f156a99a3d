import { Redis } from "ioredis";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createSpendLedger, isRefusal, type SpendLedger, summarize } from "../src/index";
import { createRedisSpendStore } from "../src/redis";
import { bookEndedWindow, expectPrunedEndedWindow, FIRST_DAY_RECORDS } from "./prune-scenario";
import { redisUrl, uniquePrefix } from "./redis-url";
import { describeSpendStoreContract } from "./store-contract";

const filePrefix = uniquePrefix("redis-store");
const usage = { model: "deepseek-chat", inputTokens: 1, outputTokens: 1 };
let storeCount = 0;

/** `count` reserves of 0.10 on the cheap rung, issued together; request ids `${tag}-${i}`. */
function reserveMany(ledger: SpendLedger, count: number, tag: string) {
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      ledger.reserve({
        rung: "cheap",
        connectionId: "deepseek",
        model: "deepseek-chat",
        maxCostUsd: 0.1,
        requestId: `${tag}-${index}`,
      }),
    ),
  );
}

/** Reserves and settles one request of `costUsd` on the cheap rung, for `clientKeyId`. */
async function bookOne(
  ledger: SpendLedger,
  requestId: string,
  costUsd: number,
  clientKeyId: string | null,
): Promise<void> {
  const reservation = await ledger.reserve({
    rung: "cheap",
    connectionId: "deepseek",
    model: "deepseek-chat",
    maxCostUsd: 0.01,
    requestId,
  });
  if (isRefusal(reservation)) throw new Error("refused");
  await ledger.settle(reservation, costUsd, { ...usage, clientKeyId });
}

/** Waits, when the minute now running is nearly over, for the next: a test then runs in one. */
async function awayFromMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}

/**
 * Adds one micro-dollar to the cost in the minute sums of `minuteMs` (its first series), without
 * a record: a summary that reads those sums shows it, one that reads the records does not.
 */
async function addMicroDollarToSums(admin: Redis, keyPrefix: string, minuteMs: number) {
  const sumsKey = `{${keyPrefix}}:minutes`;
  const [field] = await admin.zrangebyscore(`{${keyPrefix}}:minutes:fields`, minuteMs, minuteMs);
  const stored = (await admin.hget(sumsKey, field!))!.split(" ");
  await admin.hset(
    sumsKey,
    field!,
    [stored[0], Number(stored[1]) + 1, ...stored.slice(2)].join(" "),
  );
}

describeSpendStoreContract("redis", () => {
  storeCount += 1;
  const keyPrefix = `${filePrefix}:${storeCount}`;
  return {
    store: createRedisSpendStore({ url: redisUrl, keyPrefix }),
    openPeer: () => createRedisSpendStore({ url: redisUrl, keyPrefix }),
  };
});

describe("redis spend store", () => {
  const admin = new Redis(redisUrl);
  afterAll(async () => {
    const keys = await admin.keys(`{${filePrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it("answers null (unknown, B3) before ready() and the mirror after it", async () => {
    const keyPrefix = `${filePrefix}:mirror`;
    const nowMs = Date.UTC(2026, 10, 30, 9);
    const writer = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const writerLedger = createSpendLedger({
      store: writer,
      budgetsUsd: { cheap: 2 },
      now: () => nowMs,
    });
    const reservation = await writerLedger.reserve({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd: 0.75,
      requestId: "r1",
    });
    if ("refused" in reservation) throw new Error("refused");
    await writerLedger.settle(reservation, 0.5, {
      model: "deepseek-chat",
      inputTokens: 1,
      outputTokens: 1,
    });

    const late = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const lateLedger = createSpendLedger({
      store: late,
      budgetsUsd: { cheap: 2 },
      now: () => nowMs,
    });
    expect(lateLedger.rungSpendUsd("cheap")).toBeNull();
    expect(lateLedger.isExhausted("cheap")).toBe(false);
    await lateLedger.ready();
    expect(lateLedger.spentUsd("cheap")).toBe(0.5);
    expect(lateLedger.rungSpendUsd("cheap")).toBe(0.5);

    await writerLedger.reserve({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd: 1.5,
      requestId: "r2",
    });
    await vi.waitFor(() => expect(lateLedger.isExhausted("cheap")).toBe(true), { timeout: 2000 });
    await writer.close();
    await late.close();
  });

  it("publishes a burst of changes once, and a closing store's last totals to its peers", async () => {
    const keyPrefix = `${filePrefix}:folded`;
    const nowMs = Date.UTC(2026, 10, 30, 10);
    // An interval no test outlives: every change after the first waits for close() to go out.
    const writer = createRedisSpendStore({
      url: redisUrl,
      keyPrefix,
      publishIntervalMs: 3_600_000,
    });
    const peer = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const open = (store: typeof writer) =>
      createSpendLedger({ store, budgetsUsd: { cheap: 10 }, now: () => nowMs });
    const writerLedger = open(writer);
    const peerLedger = open(peer);
    await Promise.all([writerLedger.ready(), peerLedger.ready()]);
    const request = (index: number, maxCostUsd: number) => ({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd,
      requestId: `burst-${index}`,
    });

    const first = await writerLedger.reserve(request(0, 1));
    if (isRefusal(first)) throw new Error("refused");
    await vi.waitFor(() => expect(peerLedger.reservedUsd("cheap")).toBe(1), { timeout: 2000 });
    const burst = await Promise.all(
      [1, 2, 3].map((index) => writerLedger.reserve(request(index, 2))),
    );
    for (const reservation of burst) {
      if (isRefusal(reservation)) throw new Error("refused");
      await writerLedger.settle(reservation, 0.25, usage);
    }
    // The writer's own mirror follows its replies at once.
    expect(writerLedger.spentUsd("cheap")).toBe(0.75);
    expect(writerLedger.reservedUsd("cheap")).toBe(1);

    await writer.close();
    await vi.waitFor(() => expect(peerLedger.spentUsd("cheap")).toBe(0.75), { timeout: 2000 });
    expect(peerLedger.reservedUsd("cheap")).toBe(1);
    await peer.close();
  });

  it("keeps a peer's mirror within the interval of a stream of changes", async () => {
    const keyPrefix = `${filePrefix}:trailing`;
    const nowMs = Date.UTC(2026, 10, 30, 11);
    const writer = createRedisSpendStore({ url: redisUrl, keyPrefix, publishIntervalMs: 5 });
    const peer = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const open = (store: typeof writer) =>
      createSpendLedger({ store, budgetsUsd: { cheap: 10 }, now: () => nowMs });
    const writerLedger = open(writer);
    const peerLedger = open(peer);
    await Promise.all([writerLedger.ready(), peerLedger.ready()]);
    const reservations = await reserveMany(writerLedger, 20, "stream");
    for (const reservation of reservations) {
      if (isRefusal(reservation)) throw new Error("refused");
      await writerLedger.settle(reservation, 0.05, usage);
    }
    // Nothing else happens on the window: the deferred publish alone brings the peer up to date.
    await vi.waitFor(() => expect(peerLedger.spentUsd("cheap")).toBe(1), { timeout: 2000 });
    expect(peerLedger.reservedUsd("cheap")).toBe(0);
    await writer.close();
    await peer.close();
  });

  it("runs a turn's operations on one window in one script call, in the order they were issued", async () => {
    const client = new Redis(redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    let scriptCalls = 0;
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      if (command.name === "evalsha" || command.name === "eval") scriptCalls += 1;
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.sendCommand;
    const store = createRedisSpendStore({ client, keyPrefix: `${filePrefix}:batch` });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 2.5 } });
    await ledger.ready();
    scriptCalls = 0;

    // 40 reserves of 0.10 in one turn against 2.50: the first 25 issued are admitted.
    const results = await reserveMany(ledger, 40, "batch");
    expect(results.map((result) => !isRefusal(result))).toEqual(
      Array.from({ length: 40 }, (_, index) => index < 25),
    );
    expect(scriptCalls).toBe(1);
    expect(ledger.reservedUsd("cheap")).toBe(2.5);

    // Their settles wait for the next reserve and go in its call; it sees the budget they free.
    scriptCalls = 0;
    const settled = results
      .filter((result) => !isRefusal(result))
      .map((reservation) =>
        ledger.settle(reservation as Exclude<typeof reservation, { refused: true }>, 0.05, usage),
      );
    const next = await ledger.reserve({
      rung: "cheap",
      connectionId: "deepseek",
      model: "deepseek-chat",
      maxCostUsd: 1,
      requestId: "after-settles",
    });
    expect(isRefusal(next)).toBe(false);
    expect((await Promise.all(settled)).every((result) => result.booked)).toBe(true);
    expect(scriptCalls).toBe(1);
    expect(ledger.spentUsd("cheap")).toBe(1.25);
    expect(ledger.reservedUsd("cheap")).toBe(1);
    await store.close();
    await client.quit();
  });

  it("carries any record text in a batch, and refuses an id with a line break", async () => {
    const store = createRedisSpendStore({ url: redisUrl, keyPrefix: `${filePrefix}:fields` });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 5 } });
    await ledger.ready();
    // Reserves and settles of one turn share one script call; a record's text holds what the
    // batch's field separator is (a line break) and what JSON escapes.
    const model = 'line\nbreak "quoted" \\ tab\t ünï 模型';
    const reservations = await reserveMany(ledger, 3, "fields");
    const settled = await Promise.all(
      reservations.map((reservation, index) => {
        if (isRefusal(reservation)) throw new Error("refused");
        return ledger.settle(reservation, 0.01 * (index + 1), {
          ...usage,
          model,
          clientKeyId: `key\n${index}`,
        });
      }),
    );
    expect(settled.every((result) => result.booked)).toBe(true);
    const records = await ledger.records();
    expect(records.map((record) => [record.model, record.clientKeyId, record.costUsd])).toEqual([
      [model, "key\n0", 0.01],
      [model, "key\n1", 0.02],
      [model, "key\n2", 0.03],
    ]);

    const windowKey = ledger.currentWindowKey();
    const nowMs = Date.now();
    const unsafe = "id\nwith a break";
    const refused = await store
      .reserve({
        reservationId: unsafe,
        rung: "cheap",
        windowKey,
        amountMicroUsd: 1,
        budgetMicroUsd: null,
        nowMs,
        expiresAtMs: nowMs + 60_000,
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "invalid_argument", path: "request.reservationId" });
    const record = records[0]!;
    await expect(
      store.settle({ reservationId: unsafe, rung: "cheap", windowKey, nowMs, record }),
    ).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(
      store.release({ reservationId: unsafe, rung: "cheap", windowKey, nowMs }),
    ).rejects.toMatchObject({ code: "invalid_argument" });
    expect(ledger.spentUsd("cheap")).toBe(0.06);
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(store.journalSize()).toBe(0);
    await store.close();
  });

  it("sums records an earlier version booked without minute sums from the records themselves", async () => {
    const keyPrefix = `${filePrefix}:minutes`;
    const startMs = Date.UTC(2026, 11, 2, 9, 0, 30);
    let nowMs = startMs;
    const store = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const ledger = createSpendLedger({ store, budgetsUsd: {}, now: () => nowMs });
    const book = async (index: number) => {
      await bookOne(ledger, `m-${index}`, 0.001 * (index + 1), index % 2 === 0 ? "alice" : null);
      await ledger.flush();
    };
    // Three minutes of records as an earlier version left them: records, no minute sums.
    for (let index = 0; index < 6; index++, nowMs += 30_000) await book(index);
    await admin.del(`{${keyPrefix}}:minutes`, `{${keyPrefix}}:minutes:fields`);
    // Then three minutes more with sums: they begin the minute after the first of these.
    for (let index = 6; index < 12; index++, nowMs += 30_000) await book(index);
    const from = Number(await admin.hget(`{${keyPrefix}}:minutes`, "from"));
    expect(from).toBe(Date.UTC(2026, 11, 2, 9, 4));
    // A replica of an earlier version books one more, after the sums began: a record alone.
    const late = { ...(await ledger.records({}))[11]!, reservationId: "old-replica" };
    late.time = new Date(startMs + 280_000).toISOString();
    await admin.zadd(`{${keyPrefix}}:records`, startMs + 280_000, JSON.stringify(late));
    const all = await ledger.records({});
    expect(all).toHaveLength(13);
    const offsets = [0, 29_999, 30_000, 90_000, 240_000, 269_999, 270_000, 330_000, 400_000];
    const queries = [
      {},
      { clientKeyId: "alice" },
      ...offsets.flatMap((since) => [
        { sinceMs: startMs + since },
        { untilMs: startMs + since, rung: "cheap" },
        ...offsets.map((until) => ({ sinceMs: startMs + since, untilMs: startMs + until })),
      ]),
    ];
    for (const query of queries) {
      expect(await ledger.summary(query), JSON.stringify(query)).toEqual(
        summarize(await ledger.records(query)),
      );
    }
    await store.close();
  });

  it("reads the minute now running from its sums, counted at one instant with its records, and from the records when an earlier version booked there", async () => {
    const keyPrefix = `${filePrefix}:running`;
    await awayFromMinuteEnd();
    const store = createRedisSpendStore({ url: redisUrl, keyPrefix });
    // The first record is booked two minutes ago: sums are complete from the minute after it on.
    let lateBy = 120_000;
    const ledger = createSpendLedger({ store, budgetsUsd: {}, now: () => Date.now() - lateBy });
    for (let index = 0; index < 4; index++, lateBy = 0) {
      await bookOne(ledger, `r-${index}`, 0.001, "alice");
    }
    await ledger.flush();
    const running = Date.now() - (Date.now() % 60_000);
    const queries = [{}, { sinceMs: running }, { sinceMs: running - 60_000, clientKeyId: "alice" }];
    for (const query of queries) {
      expect(await ledger.summary(query)).toEqual(summarize(await ledger.records(query)));
    }

    // The sums are what is read: one micro-dollar more in them shows in the summary.
    await addMicroDollarToSums(admin, keyPrefix, running);
    const exact = summarize(await ledger.records({}));
    expect((await ledger.summary({})).byRung.cheap!.costUsd).toBeCloseTo(
      exact.byRung.cheap!.costUsd + 0.000001,
      9,
    );

    // A replica of an earlier version books one more there, without sums: the count tells, and
    // the minute is read from its records (the sums still hold the extra micro-dollar, so an
    // exact summary can only be the records').
    const late = { ...(await ledger.records({ sinceMs: running }))[0]!, reservationId: "old" };
    await admin.zadd(`{${keyPrefix}}:records`, Date.parse(late.time), JSON.stringify(late));
    for (const query of queries) {
      expect(await ledger.summary(query)).toEqual(summarize(await ledger.records(query)));
    }
    await store.close();
  });

  it("a record landing late in a recent minute sends only that minute to its records", async () => {
    const keyPrefix = `${filePrefix}:recent`;
    await awayFromMinuteEnd();
    const store = createRedisSpendStore({ url: redisUrl, keyPrefix });
    // One record a minute from seven minutes ago to now: sums complete from six minutes ago.
    let lateBy = 7 * 60_000;
    const ledger = createSpendLedger({ store, budgetsUsd: {}, now: () => Date.now() - lateBy });
    for (let index = 0; lateBy >= 0; index++, lateBy -= 60_000) {
      await bookOne(ledger, `r-${index}`, 0.001, "alice");
    }
    await ledger.flush();
    const running = Date.now() - (Date.now() % 60_000);
    // The sums are what is read: one micro-dollar more in those of five minutes ago shows.
    await addMicroDollarToSums(admin, keyPrefix, running - 5 * 60_000);
    const hour = { sinceMs: running - 60 * 60_000 };
    const withExtra = async () =>
      summarize(await ledger.records(hour)).byRung.cheap!.costUsd + 0.000001;
    expect((await ledger.summary(hour)).byRung.cheap!.costUsd).toBeCloseTo(await withExtra(), 9);
    // A record lands in the minute that just ended after the summary's last look (a replica
    // whose clock runs behind, or one of an earlier version): that minute alone is read from
    // its records, the older ones still from their sums.
    const late = {
      ...(await ledger.records({ sinceMs: running - 60_000 }))[0]!,
      reservationId: "late",
    };
    await admin.zadd(`{${keyPrefix}}:records`, Date.parse(late.time), JSON.stringify(late));
    const summary = await ledger.summary(hour);
    expect(summary.total.requests).toBe(9);
    expect(summary.byRung.cheap!.costUsd).toBeCloseTo(await withExtra(), 9);
    await store.close();
  });

  it("calls every script by its SHA, and sends a script again once Redis has lost it", async () => {
    const keyPrefix = `${filePrefix}:by-sha`;
    await awayFromMinuteEnd();
    const store = createRedisSpendStore({ url: redisUrl, keyPrefix });
    // The first record two minutes ago: the minute now running is read by its sums' script.
    let lateBy = 120_000;
    const ledger = createSpendLedger({ store, budgetsUsd: {}, now: () => Date.now() - lateBy });
    const monitor = await admin.monitor();
    const seen: string[][] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args.some((arg) => arg.includes(keyPrefix))) seen.push(args);
    });
    let marks = 0;
    /**
     * The commands naming this store's keys since the last call, once the monitor has them: up to
     * an ECHO of a fresh mark. A folded publish may land after the mark; it counts for the next call.
     */
    const commandsSince = async () => {
      const mark = `${keyPrefix}:mark:${marks++}`;
      await admin.echo(mark);
      const at = () => seen.findIndex((args) => args[1] === mark);
      await vi.waitFor(() => expect(at()).toBeGreaterThanOrEqual(0));
      return seen
        .splice(0, at() + 1)
        .slice(0, -1)
        .map((args) => args[0]!.toLowerCase());
    };
    const running = () => Date.now() - (Date.now() % 60_000);
    let booked = 0;
    /** Books one request, reads the running minute's summary and prunes: every script once. */
    const useEveryScript = async () => {
      await bookOne(ledger, `r-${booked}`, 0.001, null);
      booked += 1;
      await ledger.flush();
      expect((await ledger.summary({ sinceMs: running() })).total.requests).toBe(booked);
      await store.prune!(Date.now() - 60 * 60_000);
    };
    try {
      await bookOne(ledger, "two-minutes-ago", 0.001, null);
      lateBy = 0;
      await useEveryScript();
      await commandsSince();
      await useEveryScript();
      const known = await commandsSince();
      expect(known).toContain("evalsha");
      expect(known).not.toContain("eval");

      // As after a restart of Redis: a call that finds its script gone sends it again, and works.
      await admin.script("FLUSH");
      await useEveryScript();
      expect(await commandsSince()).toContain("eval");
      await useEveryScript();
      expect(await commandsSince()).not.toContain("eval");
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  it("uses a caller's client without quitting it", async () => {
    const client = new Redis(redisUrl);
    const store = createRedisSpendStore({ client, keyPrefix: `${filePrefix}:own-client` });
    await store.ready();
    await store.close();
    expect(await client.ping()).toBe("PONG");
    await client.quit();
  });

  it("prunes an ended window's history in steps, its finished ids and keys with it", async () => {
    const keyPrefix = `${filePrefix}:prune`;
    const store = createRedisSpendStore({ url: redisUrl, keyPrefix });
    const peer = createRedisSpendStore({ url: redisUrl, keyPrefix });
    try {
      const scenario = await bookEndedWindow(store);
      // A replica that knows the ended windows; its own prune finds them gone from Redis.
      await peer.ready();
      const peerLedger = createSpendLedger({
        store: peer,
        budgetsUsd: { cheap: 100, other: 1 },
        now: () => scenario.nowMs,
      });
      const endedWindow = scenario.live.windowKey;
      expect(peerLedger.spentUsd("cheap", endedWindow)).toBeCloseTo(FIRST_DAY_RECORDS * 0.01, 9);
      const windowKeys = () => admin.keys(`{${keyPrefix}}:win:*`);
      // Hash and finished ids of each cheap window; hash, live and amounts of the other one.
      expect(await windowKeys()).toHaveLength(7);
      const first = await expectPrunedEndedWindow(store, scenario, 1_000);
      // Every id the ended window finished: the day's settles and the release.
      expect(first.finishedIds).toBe(FIRST_DAY_RECORDS + 1);
      // What is left: the cheap rung's window of the later day (its hash, finished ids).
      expect((await windowKeys()).sort()).toEqual(
        [
          `{${keyPrefix}}:win:["cheap","day:2027-01-09"]`,
          `{${keyPrefix}}:win:["cheap","day:2027-01-09"]:done`,
        ].sort(),
      );
      expect(await admin.smembers(`{${keyPrefix}}:windows`)).toEqual([
        '["cheap","day:2027-01-09"]',
      ]);
      expect(await admin.zcard(`{${keyPrefix}}:records`)).toBe(2);
      expect(await peer.prune!(scenario.nowMs - 32 * 86_400_000)).toMatchObject({ windows: 0 });
      expect(peerLedger.spentUsd("cheap", endedWindow)).toBe(0);
      expect(peerLedger.spentUsd("other", endedWindow)).toBe(0);
      expect(peerLedger.spentUsd("cheap")).toBeCloseTo(0.01, 9);
    } finally {
      await Promise.all([store.close(), peer.close()]);
    }
  });
});
