import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import type { QuotaStoreLogger } from "./quota-store";
import { createRedisQuotaStore } from "./redis";
import { describeQuotaStoreContract } from "./store-contract";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const filePrefix = `planfirst-test:${randomUUID()}`;
const prefixes = new WeakMap<object, string>();
const silent: QuotaStoreLogger = { warn: () => {} };

afterAll(async () => {
  const admin = new Redis(url);
  const keys = await admin.keys(`${filePrefix}:*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describeQuotaStoreContract("redis", {
  async create() {
    const keyPrefix = `${filePrefix}:${randomUUID()}`;
    const store = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    prefixes.set(store, keyPrefix);
    return store;
  },
  async reopen(store) {
    const keyPrefix = prefixes.get(store)!;
    const reopened = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    prefixes.set(reopened, keyPrefix);
    return reopened;
  },
  async replica(store) {
    const keyPrefix = prefixes.get(store)!;
    const other = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    prefixes.set(other, keyPrefix);
    return other;
  },
});

describe("redis quota store", () => {
  it("works on an injected client and leaves it open on close", async () => {
    const client = new Redis(url);
    const store = createRedisQuotaStore({
      client,
      keyPrefix: `${filePrefix}:client`,
      logger: silent,
    });
    await store.ready();
    store.put("windows", { connectionId: "c", key: "5h", rev: 1, value: { ok: true } });
    await store.close();
    expect(await client.ping()).toBe("PONG");
    await client.quit();
  });

  it("Redis itself keeps the highest rev when a replica that missed it writes an older one", async () => {
    const keyPrefix = `${filePrefix}:rev`;
    const admin = new Redis(url);
    const writer = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    await writer.ready();
    // Written behind the writer's back, so its mirror cannot refuse the older write itself.
    await admin.hset(
      `${keyPrefix}:windows`,
      JSON.stringify(["c", "5h"]),
      JSON.stringify({ rev: 100, value: { v: "newer" } }),
    );
    expect(
      writer.put("windows", { connectionId: "c", key: "5h", rev: 50, value: { v: "older" } }),
    ).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reader = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    await reader.ready();
    expect(reader.list("windows", "c")[0]).toMatchObject({ rev: 100, value: { v: "newer" } });
    await Promise.all([writer.close(), reader.close()]);
    await admin.quit();
  });

  it("writes by the script's SHA, and still writes once Redis has lost its scripts", async () => {
    const keyPrefix = `${filePrefix}:sha`;
    const admin = new Redis(url);
    const monitor = await admin.monitor();
    const seen: string[][] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args.some((arg) => arg.startsWith(keyPrefix))) seen.push(args);
    });
    let marks = 0;
    const writer = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    const reader = createRedisQuotaStore({ url, keyPrefix, logger: silent });
    await Promise.all([writer.ready(), reader.ready()]);
    const landed = async (rev: number) => {
      await vi.waitFor(() => expect(reader.list("windows", "c")[0]?.rev).toBe(rev));
      // Up to an ECHO of a fresh mark: what lands after it counts for the next write.
      const mark = `${keyPrefix}:mark:${marks++}`;
      await admin.echo(mark);
      const at = () => seen.findIndex((args) => args[1] === mark);
      await vi.waitFor(() => expect(at()).toBeGreaterThanOrEqual(0));
      return seen.splice(0, at() + 1).map((args) => args[0]!.toLowerCase());
    };
    try {
      writer.put("windows", { connectionId: "c", key: "5h", rev: 1, value: { used: 1 } });
      await landed(1);
      writer.put("windows", { connectionId: "c", key: "5h", rev: 2, value: { used: 2 } });
      const known = await landed(2);
      expect(known).toContain("evalsha");
      expect(known).not.toContain("eval");
      // As after a restart of Redis: the write that finds its script gone sends it again.
      await admin.script("FLUSH");
      writer.put("windows", { connectionId: "c", key: "5h", rev: 3, value: { used: 3 } });
      expect(await landed(3)).toContain("eval");
    } finally {
      monitor.disconnect();
      await Promise.all([writer.close(), reader.close()]);
      await admin.quit();
    }
  });

  it("degrades to its mirror when Redis is unreachable: one warning, no throw", async () => {
    const warnings: string[] = [];
    const store = createRedisQuotaStore({
      url: "redis://127.0.0.1:1",
      keyPrefix: `${filePrefix}:down`,
      logger: { warn: (_details, message) => warnings.push(message) },
    });
    await expect(store.ready()).resolves.toBeUndefined();
    const now = () => Date.parse("2026-03-02T10:00:00Z");
    const cache = createQuotaCache({ store, now });
    const cooldowns = createCooldownBook({ store, now });
    expect(() => {
      cache.observe("claude-max", [
        {
          windowId: "5h",
          remainingPercent: 0,
          resetAt: "2026-03-02T15:00:00Z",
          status: "exhausted",
          source: "header",
          observedAt: "2026-03-02T10:00:00Z",
        },
      ]);
      cooldowns.fail("claude-max", {
        kind: "window_exhausted",
        retryAt: null,
        resetAt: "2026-03-02T15:00:00Z",
      });
      cooldowns.succeed("claude-max");
    }).not.toThrow();
    expect(cache.get("claude", "claude-max")?.status).toBe("exhausted");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain("127.0.0.1");
    await store.close();
  });

  it("P1 while Redis is unreachable, probes stay single-flight on this replica and evidence stays readable", async () => {
    const store = createRedisQuotaStore({
      url: "redis://127.0.0.1:1",
      keyPrefix: `${filePrefix}:down-lease`,
      logger: silent,
    });
    await store.ready();
    const now = () => Date.parse("2026-03-02T10:00:00Z");
    const cache = createQuotaCache({ store, now });
    const lease = await cache.tryAcquireProbe("zai", 10_000);
    expect(lease).not.toBeNull();
    expect(await cache.tryAcquireProbe("zai", 10_000)).toBeNull();
    await lease!.release();
    expect(await cache.tryAcquireProbe("zai", 10_000)).not.toBeNull();
    cache.observeEvidence("claude-max", {
      evidence: "on",
      observedAt: "2026-03-02T10:00:00.000Z",
      source: "claude-header",
    });
    expect(cache.overageEvidence("claude-max")).toHaveLength(1);
    await store.close();
  });
});
