import { afterEach, describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import type { QuotaWindow } from "./quota-state";
import type { QuotaStore } from "./quota-store";

/** How the contract suite obtains stores of one kind. */
export interface QuotaStoreContractSubject {
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

    if (subject.reopen) {
      const reopen = subject.reopen;
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
