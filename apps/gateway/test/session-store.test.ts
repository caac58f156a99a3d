import { afterAll, describe, expect, it } from "vitest";
import { pinKeyOf } from "../src/routing/session-key";
import { createClock, deleteRedisKeys, redisStorage, useTestBed, waitFor } from "./harness";
import {
  affinity,
  HOUR,
  planReadings,
  redisRelay,
  SESSION_ENV,
  SESSION_FAKES,
  send,
  sessionConfig,
  turn,
} from "./sessions";

// ladder.md §16, AF6: where session pins live, how long, and what a store outage costs.

const bed = useTestBed(SESSION_FAKES);

describe("session pins in time (AF6)", () => {
  it("AF6: a config reload keeps every pin, and its new idle time applies from then on", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "reload", 1))).connection).toBe("plan-b");
    const running = harness.server.gateway.deps.config;
    const outcome = await harness.server.gateway.reload({
      ...running,
      subscriptionLadder: {
        ...running.subscriptionLadder,
        sessionAffinity: { ...running.subscriptionLadder.sessionAffinity, idleTtlMs: 1_200_000 },
      },
    });
    expect(outcome.reloaded).toBe(true);
    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    const kept = await send(harness, turn("auto/subscription", "reload", 2));
    expect(kept.connection).toBe("plan-b");
    expect(affinity(kept)).toBe("affinity=hit");
    harness.clock.advance(1_200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    const idle = await send(harness, turn("auto/subscription", "reload", 3));
    expect(idle.connection).toBe("plan-a");
    expect(affinity(idle)).toBe("affinity=new");
  });

  it("AF6: forgets a session idle for idleTtlMs: its next turn follows the current order", async () => {
    const harness = await bed.start({
      config: sessionConfig(bed.fakes, {
        subscriptionLadder: { sessionAffinity: { idleTtlMs: 600_000 } },
      }),
      env: SESSION_ENV,
    });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "idle", 1))).connection).toBe("plan-b");
    harness.clock.advance(600_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    const later = await send(harness, turn("auto/subscription", "idle", 2));
    expect(later.connection).toBe("plan-a");
    expect(affinity(later)).toBe("affinity=new");
  });

  it("AF6: idleTtlMs 0 turns affinity off: no session header, every request follows the order", async () => {
    const harness = await bed.start({
      config: sessionConfig(bed.fakes, {
        subscriptionLadder: { sessionAffinity: { idleTtlMs: 0 } },
      }),
      env: SESSION_ENV,
    });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    const first = await send(harness, turn("auto/subscription", "off", 1));
    expect(first.connection).toBe("plan-b");
    expect(first.session).toBeNull();
    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    expect((await send(harness, turn("auto/subscription", "off", 2))).connection).toBe("plan-a");
  });
});

describe("sessions shared by replicas on Redis", () => {
  const prefixes: string[] = [];
  afterAll(async () => {
    await Promise.all(prefixes.map((prefix) => deleteRedisKeys(prefix)));
  });

  it("AF6: a conversation keeps its connection whichever replica serves it, though the replicas break a price tie differently", async () => {
    const storage = redisStorage();
    prefixes.push(storage.keyPrefix);
    const clock = createClock();
    const one = await bed.start({
      config: sessionConfig(bed.fakes),
      env: SESSION_ENV,
      clock,
      storage,
    });
    const reversed = sessionConfig(bed.fakes);
    reversed.connections = [...(reversed.connections ?? [])].reverse();
    const two = await bed.start({ config: reversed, env: SESSION_ENV, clock, storage });

    const first = await send(one, turn("auto/paid:thrifty", "replicas", 1));
    expect(first.connection).toBe("cheap-1");
    const hash = first.session?.slice(0, 16) ?? "";
    const book = two.server.gateway.deps.sessions;
    await waitFor(
      () => book?.pinOf(pinKeyOf(hash, "auto/paid:thrifty"))?.connectionId === "cheap-1",
      {
        what: "the pin to reach the other replica",
      },
    );
    const second = await send(two, turn("auto/paid:thrifty", "replicas", 2));
    expect(second.connection).toBe("cheap-1");
    expect(affinity(second)).toBe("affinity=hit");
    expect((await send(one, turn("auto/paid:thrifty", "replicas", 3))).connection).toBe("cheap-1");
    // A new conversation on the second replica follows that replica's own order.
    expect((await send(two, turn("auto/paid:thrifty", "fresh", 1))).connection).toBe("cheap-2");
  });

  it("AF6: Redis goes away mid-conversation: every request is still served, the pins this replica holds still apply", async () => {
    const relay = await redisRelay();
    const storage = { ...redisStorage(), url: relay.url };
    prefixes.push(storage.keyPrefix);
    try {
      const harness = await bed.start({
        config: sessionConfig(bed.fakes),
        env: SESSION_ENV,
        storage,
      });
      await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
      expect((await send(harness, turn("auto/subscription", "outage", 1))).connection).toBe(
        "plan-b",
      );
      await relay.cut();
      harness.clock.advance(200_000);
      await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
      const during = await send(harness, turn("auto/subscription", "outage", 2));
      expect(during.connection).toBe("plan-b");
      expect(affinity(during)).toBe("affinity=hit");
      expect((await send(harness, turn("auto/subscription", "new", 1))).connection).toBe("plan-a");
    } finally {
      await relay.cut();
    }
  });
});
