import { describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import { createRefreshScheduler } from "./refresh-scheduler";

const T0 = Date.parse("2026-03-02T10:00:00.000Z");

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("createRefreshScheduler", () => {
  it("single-flight: a second refresh of the same connection returns the one in flight", async () => {
    const gate = deferred();
    let calls = 0;
    const scheduler = createRefreshScheduler({
      cache: createQuotaCache({ now: () => T0 }),
      refresh: async () => {
        calls++;
        await gate.promise;
      },
      jitterMs: 0,
      now: () => T0,
    });
    const first = scheduler.refresh("c");
    const second = scheduler.refresh("c");
    expect(second).toBe(first);
    gate.resolve();
    expect(await first).toEqual({ connectionId: "c", status: "refreshed" });
    expect(calls).toBe(1);
  });

  it("runs at most `concurrency` refreshes at once", async () => {
    const gates = new Map<string, ReturnType<typeof deferred>>();
    let running = 0;
    let peak = 0;
    const scheduler = createRefreshScheduler({
      cache: createQuotaCache({ now: () => T0 }),
      refresh: async (id) => {
        running++;
        peak = Math.max(peak, running);
        const gate = deferred();
        gates.set(id, gate);
        await gate.promise;
        running--;
      },
      concurrency: 2,
      jitterMs: 0,
      now: () => T0,
    });
    const all = scheduler.refreshDue(["a", "b", "c", "d", "e"]);
    for (let i = 0; i < 20 && gates.size < 5; i++) {
      await tick();
      expect(running).toBeLessThanOrEqual(2);
      for (const gate of gates.values()) gate.resolve();
    }
    const outcomes = await all;
    expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill("refreshed"));
    expect(peak).toBe(2);
  });

  it("pitfall 17: never refreshes a connection in cooldown, and at most once per minIntervalMs", async () => {
    let nowMs = T0;
    const now = () => nowMs;
    const cooldowns = createCooldownBook({ now });
    const cache = createQuotaCache({ now, cooldowns });
    const refreshed: string[] = [];
    const scheduler = createRefreshScheduler({
      cache,
      cooldowns,
      refresh: async (id) => {
        refreshed.push(id);
      },
      jitterMs: 0,
      minIntervalMs: 60_000,
      now,
    });
    cooldowns.fail("cooling", { kind: "window_exhausted", retryAt: null, resetAt: null });
    expect(await scheduler.refresh("cooling")).toMatchObject({
      status: "skipped",
      reason: "cooling-down",
    });
    await scheduler.refreshDue(["a", "cooling"]);
    expect(refreshed).toEqual(["a"]);
    nowMs += 59_999;
    expect(await scheduler.refresh("a")).toMatchObject({
      status: "skipped",
      reason: "min-interval",
    });
    nowMs += 1;
    expect(await scheduler.refresh("a")).toMatchObject({ status: "refreshed" });
  });

  it("waits a jittered delay from random() before each refresh and reports failures", async () => {
    const delays: number[] = [];
    const scheduler = createRefreshScheduler({
      cache: createQuotaCache({ now: () => T0 }),
      refresh: async (id) => {
        if (id === "bad") throw new Error("usage endpoint answered 429");
      },
      jitterMs: 1_000,
      random: () => 0.25,
      sleep: async (ms) => {
        delays.push(ms);
      },
      now: () => T0,
    });
    const outcomes = await scheduler.refreshDue(["ok", "bad"]);
    expect(delays).toEqual([250, 250]);
    expect(outcomes.map((o) => o.status)).toEqual(["refreshed", "failed"]);
  });
});
