import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { QuotaCacheError } from "./errors";
import type { QuotaState } from "./quota-state";
import type { UpstreamFailure } from "./upstream-failure";

const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

function clock(startMs = T0) {
  let nowMs = startMs;
  return { now: () => nowMs, set: (ms: number) => (nowMs = ms) };
}

const failure = (kind: UpstreamFailure["kind"], extra: Partial<UpstreamFailure> = {}) => ({
  kind,
  retryAt: null,
  resetAt: null,
  ...extra,
});

describe("fail", () => {
  it("backs off exponentially per connection and model, up to capMs", () => {
    const { now } = clock();
    const book = createCooldownBook({ now, baseMs: 1_000, capMs: 5_000 });
    const durations = Array.from(
      { length: 5 },
      () => book.fail("c", failure("rate_limited")).durationMs,
    );
    expect(durations).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(book.fail("other", failure("rate_limited")).durationMs).toBe(1_000);
  });

  it("pitfall 5: a long upstream Retry-After is honoured beyond capMs, never cut short", () => {
    const { now } = clock();
    const book = createCooldownBook({ now, capMs: 15 * MIN });
    const retryAt = iso(T0 + 30 * HOUR);
    expect(book.fail("c", failure("rate_limited", { retryAt })).until).toBe(retryAt);
  });

  it("S4: window exhaustion cools until the exact reset, however far, never past it", () => {
    const { now } = clock();
    const book = createCooldownBook({ now });
    const resetAt = iso(T0 + 5 * HOUR);
    const cooldown = book.fail(
      "c",
      failure("window_exhausted", { resetAt, retryAt: iso(T0 + 6 * HOUR) }),
    );
    expect(cooldown).toMatchObject({ until: resetAt, durationMs: 5 * HOUR, resetAt });
  });

  it("S4: a transient backoff is clamped to the upstream reset", () => {
    const { now } = clock();
    const book = createCooldownBook({ now, baseMs: 60_000 });
    const cooldown = book.fail("c", failure("rate_limited", { resetAt: iso(T0 + 10_000) }));
    expect(cooldown.durationMs).toBe(10_000);
  });

  it("pitfall 9: a window failure with no reset backs off instead of inventing one", () => {
    const { now } = clock();
    const book = createCooldownBook({ now, baseMs: 1_000 });
    expect(book.fail("c", failure("window_exhausted")).durationMs).toBe(1_000);
  });

  it("credits exhausted without a reset cools for creditsCooldownMs (1 h by default)", () => {
    const { now } = clock();
    expect(createCooldownBook({ now }).fail("c", failure("credits_exhausted")).durationMs).toBe(
      HOUR,
    );
  });

  it("auth_invalid cools the whole connection for authCooldownMs until succeed()", () => {
    const { now } = clock();
    const book = createCooldownBook({ now });
    const cooldown = book.fail("c", failure("auth_invalid", { scope: { model: "opus" } }), {
      model: "claude-opus-4-1",
    });
    expect(cooldown).toMatchObject({ model: null, durationMs: 24 * HOUR });
    expect(book.isCoolingDown("c", "claude-sonnet-4-5")).toBe(true);
    book.succeed("c");
    expect(book.isCoolingDown("c")).toBe(false);
  });

  it("misconfigured cools the whole connection for misconfiguredCooldownMs (15 min), with its reason", () => {
    const { now } = clock();
    const reason = "Copilot refused the request: missing Editor-Version header";
    const cooldown = createCooldownBook({ now }).fail(
      "c",
      failure("misconfigured", { retryAt: iso(T0 + 5 * HOUR), detail: reason }),
      { model: "gpt-4.1" },
    );
    expect(cooldown).toMatchObject({ model: null, durationMs: 15 * MIN, reason });
    const custom = createCooldownBook({ now, misconfiguredCooldownMs: 2 * MIN });
    custom.fail("c", failure("misconfigured"));
    expect(custom.activeCooldowns("c")).toMatchObject([{ durationMs: 2 * MIN, reason: null }]);
    expect(custom.isCoolingDown("c", "any-model")).toBe(true);
  });

  it("overload backs off the target model only", () => {
    const { now } = clock();
    const book = createCooldownBook({ now });
    book.fail("c", failure("overloaded"), { model: "claude-opus-4-1" });
    expect(book.isCoolingDown("c", "claude-opus-4-1")).toBe(true);
    expect(book.isCoolingDown("c", "claude-sonnet-4-5")).toBe(false);
    expect(book.isCoolingDown("c")).toBe(false);
  });

  it("pitfall 8: a model-scoped failure cools only that model; account-wide covers every model", () => {
    const { now } = clock();
    const book = createCooldownBook({ now });
    book.fail(
      "c",
      failure("window_exhausted", { scope: { model: "opus" }, resetAt: iso(T0 + HOUR) }),
    );
    expect(book.isCoolingDown("c", "claude-opus-4-1")).toBe(true);
    expect(book.isCoolingDown("c", "claude-sonnet-4-5")).toBe(false);
    book.fail("c", failure("rate_limited"));
    expect(book.isCoolingDown("c", "claude-sonnet-4-5")).toBe(true);
    expect(book.cooldownUntil("c", "claude-opus-4-1")).toBe(iso(T0 + HOUR));
  });

  it("a longer cooldown in force is not shortened by a later short failure", () => {
    const { now } = clock();
    const book = createCooldownBook({ now });
    book.fail("c", failure("window_exhausted", { resetAt: iso(T0 + HOUR) }));
    expect(book.fail("c", failure("rate_limited")).until).toBe(iso(T0 + HOUR));
  });

  it("property: a cooldown never ends after an upstream reset that is in the future", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "rate_limited",
          "window_exhausted",
          "credits_exhausted",
          "overloaded" as const,
        ),
        fc.integer({ min: 1, max: 30 * 24 * 3_600 }),
        fc.option(fc.integer({ min: 1, max: 30 * 24 * 3_600 }), { nil: null }),
        fc.integer({ min: 1, max: 12 }),
        (kind, resetInS, retryInS, repeats) => {
          const book = createCooldownBook({ now: () => T0 });
          const resetAt = iso(T0 + resetInS * 1_000);
          const retryAt = retryInS === null ? null : iso(T0 + retryInS * 1_000);
          let until = "";
          for (let i = 0; i < repeats; i++) {
            until = book.fail("c", { kind, resetAt, retryAt }).until;
          }
          expect(Date.parse(until)).toBeLessThanOrEqual(Date.parse(resetAt));
          expect(Date.parse(until)).toBeGreaterThan(T0);
        },
      ),
    );
  });
});

describe("isCoolingDown, cooldownUntil, succeed", () => {
  it("expired cooldowns vanish; attempts continue while failures keep coming", () => {
    const time = clock();
    const book = createCooldownBook({ now: time.now, baseMs: 1_000 });
    book.fail("c", failure("rate_limited"));
    time.set(T0 + 1_000);
    expect(book.isCoolingDown("c")).toBe(false);
    expect(book.cooldownUntil("c")).toBeNull();
    expect(book.activeCooldowns("c")).toEqual([]);
    expect(book.fail("c", failure("rate_limited")).attempts).toBe(2);
  });

  it("succeed clears the cooldown and its attempt counter, and only the matching model", () => {
    const { now } = clock();
    const book = createCooldownBook({ now, baseMs: 1_000 });
    book.fail("c", failure("rate_limited"));
    book.fail("c", failure("rate_limited"));
    book.fail("c", failure("overloaded"), { model: "claude-opus-4-1" });
    book.fail("c", failure("overloaded"), { model: "claude-sonnet-4-5" });
    book.succeed("c", { model: "claude-opus-4-1" });
    expect(book.isCoolingDown("c", "claude-opus-4-1")).toBe(false);
    expect(book.isCoolingDown("c", "claude-sonnet-4-5")).toBe(true);
    expect(book.fail("c", failure("rate_limited")).attempts).toBe(1);
  });
});

describe("releaseOnHeadroom", () => {
  const state = (overrides: Partial<QuotaState>): QuotaState => ({
    status: "available",
    remainingPercent: 80,
    resetAt: iso(T0 + 5 * HOUR),
    checkedAt: iso(T0 + MIN),
    hasBeenExhausted: false,
    windows: [],
    ...overrides,
  });

  it("releases a quota cooldown on a later reading with headroom, not on an older or low one", () => {
    const time = clock();
    const book = createCooldownBook({ now: time.now });
    book.fail("c", failure("window_exhausted", { resetAt: iso(T0 + 5 * HOUR) }));
    time.set(T0 + 2 * MIN);
    expect(book.releaseOnHeadroom("c", state({ checkedAt: iso(T0 - 1) }))).toBe(0);
    expect(book.releaseOnHeadroom("c", state({ remainingPercent: 5 }))).toBe(0);
    expect(book.releaseOnHeadroom("c", state({ hasBeenExhausted: true }))).toBe(0);
    expect(book.releaseOnHeadroom("c", undefined)).toBe(0);
    expect(book.isCoolingDown("c")).toBe(true);
    expect(book.releaseOnHeadroom("c", state({}))).toBe(1);
    expect(book.isCoolingDown("c")).toBe(false);
  });

  it("never releases a transient, overload or auth cooldown", () => {
    const time = clock();
    const book = createCooldownBook({ now: time.now });
    book.fail("c", failure("auth_invalid"));
    time.set(T0 + 2 * MIN);
    expect(book.releaseOnHeadroom("c", state({}))).toBe(0);
    expect(book.isCoolingDown("c")).toBe(true);
  });
});

describe("options", () => {
  it("rejects a bad option naming the path and the allowed values", () => {
    expect(() => createCooldownBook({ baseMs: -1 })).toThrow(QuotaCacheError);
    expect(() => createCooldownBook({ capMs: 10, baseMs: 100 })).toThrow(/capMs .* 100 to/);
  });
});
