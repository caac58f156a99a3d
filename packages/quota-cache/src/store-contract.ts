import { afterEach, describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import type { QuotaWindow } from "./quota-state";
import type { QuotaStore } from "./quota-store";

/** How the contract suite obtains stores of one kind. */
interface QuotaStoreContractSubject {
  /** A fresh, empty store. */
  create(): Promise<QuotaStore>;
  /** A new store over the same data as `store` after it was closed (a restart). */
  reopen?(store: QuotaStore): Promise<QuotaStore>;
  /** A second store sharing `store`'s data live (another gateway replica). */
  replica?(store: QuotaStore): Promise<QuotaStore>;
}

const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

function reading(windowId: string, remainingPercent: number, observedMs: number): QuotaWindow {
  return {
    windowId,
    remainingPercent,
    resetAt: iso(T0 + 5 * 3_600_000),
    status: remainingPercent <= 0 ? "exhausted" : "ok",
    source: "header",
    observedAt: iso(observedMs),
  };
}

async function eventually(check: () => void, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/**
 * The behaviour every quota store must have; run against memory, SQLite and Redis so the cache
 * and the cooldown book work the same on each.
 */
export function describeQuotaStoreContract(name: string, subject: QuotaStoreContractSubject): void {
  describe(`quota store contract: ${name}`, () => {
    const opened: QuotaStore[] = [];
    const track = (store: QuotaStore) => {
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    it("lists what was put, per bucket and connection", async () => {
      const store = track(await subject.create());
      await store.ready();
      expect(store.put("windows", { connectionId: "c1", key: "5h", rev: 1, value: { a: 1 } })).toBe(
        true,
      );
      store.put("cooldowns", { connectionId: "c2", key: "account", rev: 1, value: { b: 2 } });
      expect(store.list("windows", "c1")).toEqual([
        { connectionId: "c1", key: "5h", rev: 1, value: { a: 1 } },
      ]);
      expect(store.list("windows", "c2")).toEqual([]);
      expect(store.connectionIds("cooldowns")).toEqual(["c2"]);
    });

    it("keeps the record with the highest rev and removes on request", async () => {
      const store = track(await subject.create());
      await store.ready();
      store.put("windows", { connectionId: "c1", key: "5h", rev: 10, value: { v: "new" } });
      expect(
        store.put("windows", { connectionId: "c1", key: "5h", rev: 5, value: { v: "old" } }),
      ).toBe(false);
      expect(store.list("windows", "c1")[0]?.value).toEqual({ v: "new" });
      store.remove("windows", "c1", "5h");
      expect(store.list("windows", "c1")).toEqual([]);
      expect(store.connectionIds("windows")).toEqual([]);
    });

    it("lists every write made after a read; a list read before keeps what it listed", async () => {
      const store = track(await subject.create());
      await store.ready();
      store.put("windows", { connectionId: "c1", key: "5h", rev: 1, value: { v: 1 } });
      const before = store.list("windows", "c1");
      expect(store.list("windows", "c1")).toEqual(before);
      store.put("windows", { connectionId: "c1", key: "5h", rev: 2, value: { v: 2 } });
      store.put("windows", { connectionId: "c1", key: "7d", rev: 1, value: { v: 3 } });
      expect(store.list("windows", "c1").map((record) => record.value)).toEqual([
        { v: 2 },
        { v: 3 },
      ]);
      store.remove("windows", "c1", "7d");
      expect(store.list("windows", "c1").map((record) => record.value)).toEqual([{ v: 2 }]);
      expect(before).toEqual([{ connectionId: "c1", key: "5h", rev: 1, value: { v: 1 } }]);
    });

    it("serves the cache and the cooldown book synchronously", async () => {
      const store = track(await subject.create());
      await store.ready();
      const now = () => T0;
      const cache = createQuotaCache({ store, now });
      const cooldowns = createCooldownBook({ store, now });
      cache.observe("claude-max", [reading("5h", 40, T0)]);
      cooldowns.fail("claude-max", { kind: "rate_limited", retryAt: null, resetAt: null });
      expect(cache.get("claude", "claude-max")?.remainingPercent).toBe(40);
      expect(cooldowns.isCoolingDown("claude-max")).toBe(true);
    });

    it("E4 evidence: the newest on and newest off are both kept; an older one never wins", async () => {
      const store = track(await subject.create());
      await store.ready();
      const cache = createQuotaCache({ store, now: () => T0 + 60_000 });
      cache.observeEvidence("claude-max", {
        evidence: "on",
        observedAt: iso(T0),
        source: "claude-header",
      });
      // Same instant, off: kept beside the on, listed after it.
      cache.observeEvidence("claude-max", {
        evidence: "off",
        observedAt: iso(T0),
        source: "claude-usage",
      });
      expect(cache.overageEvidence("claude-max").map((o) => o.evidence)).toEqual(["on", "off"]);
      // A newer off does not hide the on; an older on does not replace the newer one.
      cache.observeEvidence("claude-max", {
        evidence: "off",
        observedAt: iso(T0 + 30_000),
        source: "claude-header",
        detail: "org_level_disabled",
      });
      cache.observeEvidence("claude-max", {
        evidence: "on",
        observedAt: iso(T0 - 5_000),
        source: "old",
      });
      expect(cache.overageEvidence("claude-max")).toEqual([
        {
          evidence: "off",
          observedAt: iso(T0 + 30_000),
          source: "claude-header",
          detail: "org_level_disabled",
        },
        { evidence: "on", observedAt: iso(T0), source: "claude-header" },
      ]);
      expect(cache.overageEvidence("other")).toEqual([]);
    });

    it("P1 probe lease: one holder at a time, free again after release or expiry", async () => {
      const store = track(await subject.create());
      await store.ready();
      let nowMs = T0;
      const cache = createQuotaCache({ store, now: () => nowMs });
      const first = await cache.tryAcquireProbe("zai", 500);
      expect(first).not.toBeNull();
      expect(await cache.tryAcquireProbe("zai", 500)).toBeNull();
      expect(cache.isProbeInFlight("zai")).toBe(true);
      expect(await cache.tryAcquireProbe("kimi", 500)).not.toBeNull();
      await first!.release();
      const second = await cache.tryAcquireProbe("zai", 50);
      expect(second).not.toBeNull();
      // A lease nobody releases lapses by itself (Redis by its own clock, others by `now`).
      nowMs += 60;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await cache.tryAcquireProbe("zai", 500)).not.toBeNull();
    });

    it("P3 served: a 2xx with no reading makes the state available until the next failure", async () => {
      const store = track(await subject.create());
      await store.ready();
      const cache = createQuotaCache({ store, now: () => T0 });
      cache.recordServed("zai");
      expect(cache.get("zai", "zai")).toMatchObject({
        status: "available",
        remainingPercent: null,
        checkedAt: iso(T0),
        windows: [{ windowId: "served", served: true, source: "probe" }],
      });
      cache.observeFailure("zai", { kind: "rate_limited", retryAt: null, resetAt: null });
      expect(cache.get("zai", "zai")).toBeUndefined();
    });

    if (subject.reopen) {
      const reopen = subject.reopen;
      it("evidence survives a restart", async () => {
        const store = await subject.create();
        await store.ready();
        const cache = createQuotaCache({ store, now: () => T0 });
        cache.observeEvidence("claude-max", {
          evidence: "on",
          observedAt: iso(T0),
          source: "claude-money-refusal",
        });
        await store.close();
        const reopened = track(await reopen(store));
        await reopened.ready();
        expect(
          createQuotaCache({ store: reopened, now: () => T0 }).overageEvidence("claude-max"),
        ).toEqual([{ evidence: "on", observedAt: iso(T0), source: "claude-money-refusal" }]);
      });

      it("S1 state survives a restart: a reopened store reads the same quota and cooldowns", async () => {
        const store = await subject.create();
        await store.ready();
        const now = () => T0 + 1_000;
        createQuotaCache({ store, now }).observe("claude-max", [
          reading("5h", 1, T0),
          { ...reading("7d:opus", 30, T0), scope: { model: "opus" } },
        ]);
        const written = createCooldownBook({ store, now }).fail("claude-max", {
          kind: "window_exhausted",
          retryAt: null,
          resetAt: iso(T0 + 5 * 3_600_000),
        });
        const before = createQuotaCache({ store, now }).get(
          "claude",
          "claude-max",
          "claude-opus-4-1",
        );
        await store.close();

        const reopened = track(await reopen(store));
        await reopened.ready();
        const cache = createQuotaCache({ store: reopened, now });
        expect(cache.get("claude", "claude-max", "claude-opus-4-1")).toEqual(before);
        expect(cache.get("claude", "claude-max", "claude-opus-4-1")?.hasBeenExhausted).toBe(true);
        expect(createCooldownBook({ store: reopened, now }).cooldownUntil("claude-max")).toBe(
          written.until,
        );
      });
    }

    if (subject.replica) {
      const replica = subject.replica;
      it("replicas: a write on one is visible to get() on the other within 100 ms", async () => {
        const storeA = track(await subject.create());
        await storeA.ready();
        const storeB = track(await replica(storeA));
        await storeB.ready();
        const now = () => T0;
        const cacheA = createQuotaCache({ store: storeA, now });
        const cacheB = createQuotaCache({ store: storeB, now });
        const cooldownsA = createCooldownBook({ store: storeA, now });
        const cooldownsB = createCooldownBook({ store: storeB, now });

        cacheA.observe("codex-pro", [reading("5h", 12, T0)]);
        cooldownsA.fail(
          "codex-pro",
          { kind: "overloaded", retryAt: null, resetAt: null },
          {
            model: "gpt-5-codex",
          },
        );
        await eventually(() => {
          expect(cacheB.get("codex", "codex-pro")?.remainingPercent).toBe(12);
          expect(cooldownsB.isCoolingDown("codex-pro", "gpt-5-codex")).toBe(true);
        }, 100);

        cooldownsB.succeed("codex-pro", { model: "gpt-5-codex" });
        await eventually(
          () => expect(cooldownsA.isCoolingDown("codex-pro", "gpt-5-codex")).toBe(false),
          100,
        );
      });

      it("E4 replicas: evidence on one replica reaches the other within 100 ms, and probes are single-flight across them", async () => {
        const storeA = track(await subject.create());
        await storeA.ready();
        const storeB = track(await replica(storeA));
        await storeB.ready();
        const cacheA = createQuotaCache({ store: storeA, now: () => T0 });
        const cacheB = createQuotaCache({ store: storeB, now: () => T0 });
        cacheA.observeEvidence("claude-max", {
          evidence: "on",
          observedAt: iso(T0),
          source: "claude-money-refusal",
        });
        await eventually(
          () => expect(cacheB.overageEvidence("claude-max").map((o) => o.evidence)).toEqual(["on"]),
          100,
        );
        const lease = await cacheA.tryAcquireProbe("zai", 5_000);
        expect(lease).not.toBeNull();
        expect(await cacheB.tryAcquireProbe("zai", 5_000)).toBeNull();
        expect(cacheB.isProbeInFlight("zai")).toBe(true);
        await lease!.release();
        expect(await cacheB.tryAcquireProbe("zai", 5_000)).not.toBeNull();
      });

      it("replicas: an older reading written later on another replica does not win", async () => {
        const storeA = track(await subject.create());
        await storeA.ready();
        const storeB = track(await replica(storeA));
        await storeB.ready();
        const now = () => T0 + 10_000;
        const cacheA = createQuotaCache({ store: storeA, now });
        const cacheB = createQuotaCache({ store: storeB, now });
        cacheA.observe("claude-max", [reading("5h", 60, T0 + 5_000)]);
        await eventually(() => expect(cacheB.get("claude", "claude-max")).toBeDefined(), 100);
        cacheB.observe("claude-max", [reading("5h", 90, T0)]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const late = track(await replica(storeA));
        await late.ready();
        for (const store of [storeA, storeB, late]) {
          expect(
            createQuotaCache({ store, now }).get("claude", "claude-max")?.remainingPercent,
          ).toBe(60);
        }
      });
    }
  });
}
