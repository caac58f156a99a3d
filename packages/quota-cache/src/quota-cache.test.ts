import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import { isStateStaleForReset, type QuotaWindow } from "./quota-state";

const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

function clock(startMs = T0) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    set: (ms: number) => {
      nowMs = ms;
    },
  };
}

function win(
  windowId: string,
  remainingPercent: number | null,
  observedMs: number,
  extra: Partial<QuotaWindow> = {},
): QuotaWindow {
  return {
    windowId,
    remainingPercent,
    resetAt: iso(T0 + 5 * 60 * MIN),
    status: remainingPercent !== null && remainingPercent <= 0 ? "exhausted" : "ok",
    source: "header",
    observedAt: iso(observedMs),
    ...extra,
  };
}

describe("observe", () => {
  it("a newer observedAt wins and an older one is ignored, per window", () => {
    const { now } = clock(T0 + MIN);
    const cache = createQuotaCache({ now });
    cache.observe("c", [win("5h", 50, T0), win("7d", 80, T0)]);
    cache.observe("c", [win("5h", 40, T0 + 1_000)]);
    cache.observe("c", [win("5h", 90, T0 - 1_000), win("7d", 10, T0 - 1)]);
    const state = cache.get("claude", "c");
    expect(state?.remainingPercent).toBe(40);
    expect(state?.windows.map((w) => [w.windowId, w.remainingPercent])).toEqual([
      ["5h", 40],
      ["7d", 80],
    ]);
  });

  it("keeps each window's scope, reset and observation time", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    const opus = win("7d:opus", 30, T0, {
      scope: { model: "opus" },
      windowSeconds: 604_800,
      rawUsedPercent: 70,
    });
    cache.observe("c", [opus]);
    expect(cache.get("claude", "c", "claude-opus-4-1")?.windows).toEqual([opus]);
  });
});

describe("get", () => {
  it("Q-scope: a model-scoped window gates only that model (case-insensitive, by family)", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    cache.observe("c", [
      win("5h", 70, T0),
      win("7d:opus", 0, T0, { scope: { model: "Opus" }, status: "exhausted" }),
    ]);
    expect(cache.get("claude", "c", "claude-opus-4-1")?.status).toBe("exhausted");
    expect(cache.get("claude", "c", "CLAUDE-OPUS-4-1")?.status).toBe("exhausted");
    expect(cache.get("claude", "c", "claude-sonnet-4-5")).toMatchObject({
      status: "available",
      remainingPercent: 70,
    });
    expect(cache.get("claude", "c")?.windows.map((w) => w.windowId)).toEqual(["5h"]);
  });

  it("binding window is the lowest remaining; checkedAt is the oldest applicable reading", () => {
    const { now } = clock(T0 + MIN);
    const cache = createQuotaCache({ now });
    cache.observe("c", [
      win("5h", 60, T0 + 30_000),
      win("7d", 20, T0, { resetAt: iso(T0 + 3 * 24 * 60 * MIN) }),
    ]);
    expect(cache.get("claude", "c")).toMatchObject({
      status: "available",
      remainingPercent: 20,
      resetAt: iso(T0 + 3 * 24 * 60 * MIN),
      checkedAt: iso(T0),
      hasBeenExhausted: false,
    });
  });

  it("status is exhausted when the binding window is exhausted or at 0 %", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    cache.observe("a", [win("5h", 0, T0, { status: "ok" })]);
    cache.observe("b", [win("5h", 30, T0, { status: "exhausted" })]);
    expect(cache.get("claude", "a")?.status).toBe("exhausted");
    expect(cache.get("claude", "b")?.status).toBe("exhausted");
  });

  it("unknown remaining gives status unknown; missing connection gives undefined", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    cache.observe("c", [win("5h", null, T0)]);
    expect(cache.get("claude", "c")).toMatchObject({ status: "unknown", remainingPercent: null });
    expect(cache.get("claude", "nope")).toBeUndefined();
  });

  it("S1: undefined once every window is older than ttlMs (exactly ttlMs is still fresh)", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now, ttlMs: 180_000 });
    cache.observe("c", [win("5h", 50, T0)]);
    time.set(T0 + 180_000);
    expect(cache.get("claude", "c")).toBeDefined();
    time.set(T0 + 180_001);
    expect(cache.get("claude", "c")).toBeUndefined();
  });

  it("S2: a window past its reset is reported, so the state is stale for reset and refreshed", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now });
    cache.observe("c", [win("5h", 0, T0, { resetAt: iso(T0 + 60_000) })]);
    time.set(T0 + 61_000);
    const state = cache.get("claude", "c");
    expect(state?.status).toBe("exhausted");
    expect(isStateStaleForReset(state, time.now())).toBe(true);
    expect(cache.needsRefresh()).toEqual(["c"]);
  });

  it("S5: a window stops applying ttlMs after its reset, so nothing sticky outlives it", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now, ttlMs: 180_000 });
    cache.observe("c", [
      win("5h", 0, T0, { resetAt: iso(T0 + 60_000) }),
      win("7d", 50, T0, { resetAt: iso(T0 + 7 * 24 * 60 * MIN) }),
    ]);
    time.set(T0 + 60_000 + 120_000);
    cache.observe("c", [win("7d", 50, time.now(), { resetAt: iso(T0 + 7 * 24 * 60 * MIN) })]);
    expect(cache.get("claude", "c")?.status).toBe("exhausted");
    time.set(T0 + 60_000 + 180_001);
    expect(cache.get("claude", "c")).toMatchObject({ status: "available", remainingPercent: 50 });
  });

  it("property: the state reads the lowest applicable window and ignores other models' windows", () => {
    const windowArb = fc.record({
      remaining: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
      scope: fc.constantFrom(undefined, "opus", "sonnet"),
    });
    fc.assert(
      fc.property(fc.array(windowArb, { minLength: 1, maxLength: 8 }), (specs) => {
        const cache = createQuotaCache({ now: () => T0 });
        cache.observe(
          "c",
          specs.map((spec, i) =>
            win(`w${i}`, spec.remaining, T0, {
              status: "ok",
              ...(spec.scope ? { scope: { model: spec.scope } } : {}),
            }),
          ),
        );
        const applicable = specs.filter((s) => s.scope !== "sonnet");
        const state = cache.get("claude", "c", "claude-opus-4-1");
        if (applicable.length === 0) {
          expect(state).toBeUndefined();
          return;
        }
        const known = applicable.map((s) => s.remaining).filter((r): r is number => r !== null);
        expect(state?.remainingPercent ?? null).toBe(known.length ? Math.min(...known) : null);
        expect(state?.windows).toHaveLength(applicable.length);
        expect(state?.status === "exhausted").toBe(known.length > 0 && Math.min(...known) <= 0);
      }),
    );
  });
});

describe("hysteresis latch", () => {
  it("H1 latches on a low reading and H2 clears only on a fresh reading above the floor", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now });
    cache.observe("c", [win("5h", 1, T0)]);
    expect(cache.get("claude", "c")?.hasBeenExhausted).toBe(true);
    time.set(T0 + MIN);
    cache.observe("c", [win("5h", 4, T0 + MIN)]);
    expect(cache.get("claude", "c")?.hasBeenExhausted).toBe(true);
    time.set(T0 + 2 * MIN);
    cache.observe("c", [win("5h", 6, T0 + 2 * MIN)]);
    expect(cache.get("claude", "c")?.hasBeenExhausted).toBe(false);
  });

  it("H2: a passed resetAt alone does not clear the latch; a reading that is not fresh neither", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now });
    cache.observe("c", [win("5h", 0, T0, { resetAt: iso(T0 + MIN) })]);
    time.set(T0 + 10 * MIN);
    cache.observe("c", [win("5h", 4, T0 + 10 * MIN)]);
    expect(cache.get("claude", "c")?.hasBeenExhausted).toBe(true);
    cache.observe("c", [win("5h", 90, T0 + 4 * MIN)]);
    expect(cache.get("claude", "c")).toMatchObject({ remainingPercent: 4, hasBeenExhausted: true });
  });

  it("the latch is kept per window: another window reading lower does not hide it", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    cache.observe("c", [win("5h", 0, T0)]);
    cache.observe("c", [win("5h", 3, T0 + 1), win("7d", 2.5, T0 + 1)]);
    expect(cache.get("claude", "c")).toMatchObject({
      remainingPercent: 2.5,
      hasBeenExhausted: true,
    });
  });
});

describe("observeFailure", () => {
  const reset = iso(T0 + 5 * 60 * MIN);

  it("a model-scoped quota failure marks only that model exhausted, with the failure's reset", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    cache.observe("c", [win("5h", 70, T0 - 1)]);
    cache.observeFailure(
      "c",
      { kind: "window_exhausted", retryAt: null, resetAt: reset, scope: { model: "opus" } },
      { model: "claude-opus-4-1" },
    );
    expect(cache.get("claude", "c", "claude-opus-4-1")).toMatchObject({
      status: "exhausted",
      resetAt: reset,
      hasBeenExhausted: true,
    });
    expect(cache.get("claude", "c", "claude-sonnet-4-5")?.status).toBe("available");
  });

  it("rate_limited, overloaded and auth_invalid mark no quota", () => {
    const { now } = clock();
    const cache = createQuotaCache({ now });
    for (const kind of ["rate_limited", "overloaded", "auth_invalid"] as const) {
      cache.observeFailure("c", { kind, retryAt: iso(T0 + MIN), resetAt: reset });
    }
    expect(cache.get("claude", "c")).toBeUndefined();
  });

  it("a failure naming no window is replaced by the next reading in its scope, keeping H1", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now });
    cache.observeFailure("c", { kind: "window_exhausted", retryAt: null, resetAt: reset });
    time.set(T0 + MIN);
    cache.observe("c", [win("5h", 4, T0 + MIN)]);
    expect(cache.get("claude", "c")).toMatchObject({
      status: "available",
      remainingPercent: 4,
      hasBeenExhausted: true,
    });
    expect(cache.get("claude", "c")?.windows.map((w) => w.windowId)).toEqual(["5h"]);
  });

  it("pitfall 9: a failure without any reset invents none and applies for ttlMs only", () => {
    const time = clock();
    const cache = createQuotaCache({ now: time.now, ttlMs: 180_000 });
    cache.observe("c", [win("5h", 70, T0)]);
    cache.observeFailure(
      "c",
      { kind: "window_exhausted", retryAt: null, resetAt: null, scope: {} },
      { model: "claude-opus-4-1" },
    );
    expect(cache.get("claude", "c", "claude-opus-4-1")).toMatchObject({
      status: "exhausted",
      resetAt: null,
    });
    time.set(T0 + 180_001);
    cache.observe("c", [win("5h", 70, time.now())]);
    expect(cache.get("claude", "c", "claude-opus-4-1")?.status).toBe("available");
  });
});

describe("needsRefresh", () => {
  it("lists missing, expired and past-reset connections, never one in cooldown", () => {
    const time = clock();
    const cooldowns = createCooldownBook({ now: time.now });
    const cache = createQuotaCache({ now: time.now, cooldowns });
    cache.observe("fresh", [win("5h", 50, T0, { resetAt: iso(T0 + 60 * MIN) })]);
    cache.observe("old", [win("5h", 50, T0 - 4 * MIN)]);
    cache.observe("reset", [win("5h", 0, T0 - MIN, { resetAt: iso(T0 - 1) })]);
    cache.observe("cooling", [win("5h", 50, T0 - 4 * MIN)]);
    cooldowns.fail("cooling", { kind: "rate_limited", retryAt: null, resetAt: null });
    expect(cache.needsRefresh(["fresh", "old", "reset", "cooling", "never-seen"])).toEqual([
      "old",
      "reset",
      "never-seen",
    ]);
    expect(cache.needsRefresh().sort()).toEqual(["old", "reset"]);
  });
});

describe("early release through the cache", () => {
  it("a fresh reading showing headroom releases a quota cooldown; a transient one stays", () => {
    const time = clock();
    const cooldowns = createCooldownBook({ now: time.now });
    const cache = createQuotaCache({ now: time.now, cooldowns });
    cooldowns.fail("credits", { kind: "credits_exhausted", retryAt: null, resetAt: null });
    cooldowns.fail("limited", { kind: "rate_limited", retryAt: iso(T0 + 10 * MIN), resetAt: null });
    time.set(T0 + MIN);
    cache.observe("credits", [win("credits", 4, T0 + MIN)]);
    expect(cooldowns.isCoolingDown("credits")).toBe(true);
    cache.observe("credits", [win("credits", 60, T0 + MIN + 1)]);
    cache.observe("limited", [win("rpm", 90, T0 + MIN)]);
    expect(cooldowns.isCoolingDown("credits")).toBe(false);
    expect(cooldowns.isCoolingDown("limited")).toBe(true);
  });
});
