import { describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { createQuotaCache } from "./quota-cache";
import { isStateStaleForReset, type QuotaState } from "./quota-state";

const at = (hhmm: string) => Date.parse(`2026-03-02T${hhmm}:00.000Z`);
const iso = (ms: number) => new Date(ms).toISOString();

/** The ladder's view of a connection (ladder.md Q2, Q6, H1–H2), enough for this scenario. */
function inPool(state: QuotaState | undefined, coolingDown: boolean, nowMs: number): boolean {
  if (coolingDown || !state || isStateStaleForReset(state, nowMs)) return false;
  if (state.status !== "available" || state.remainingPercent === null) return false;
  return state.remainingPercent > (state.hasBeenExhausted ? 5 : 2);
}

describe("scenario: cooldowns end at the real reset (S4)", () => {
  it("exhausted at 10:00, reset 15:00, backoff would say 16:00: out until 15:00, back on the first fresh read after", () => {
    let nowMs = at("10:00");
    const now = () => nowMs;
    // Backoff alone at this point would say 16:00: six hours, far past the real reset.
    const cooldowns = createCooldownBook({ now, baseMs: 6 * 3_600_000, capMs: 6 * 3_600_000 });
    const cache = createQuotaCache({ now, cooldowns });
    const resetAt = iso(at("15:00"));
    const view = () =>
      inPool(cache.get("claude", "claude-max"), cooldowns.isCoolingDown("claude-max"), nowMs);

    cache.observe("claude-max", [
      {
        windowId: "5h",
        remainingPercent: 0,
        resetAt,
        status: "exhausted",
        source: "header",
        observedAt: iso(nowMs),
      },
    ]);
    const failure = { kind: "window_exhausted" as const, retryAt: null, resetAt, windowId: "5h" };
    cache.observeFailure("claude-max", failure);
    expect(cooldowns.fail("claude-max", failure).until).toBe(resetAt);
    expect(view()).toBe(false);

    nowMs = at("14:59");
    expect(view()).toBe(false);
    expect(cooldowns.isCoolingDown("claude-max")).toBe(true);

    nowMs = at("15:00") + 1_000;
    expect(cooldowns.isCoolingDown("claude-max")).toBe(false);
    expect(cache.needsRefresh(["claude-max"])).toEqual(["claude-max"]);
    cache.observe("claude-max", [
      {
        windowId: "5h",
        remainingPercent: 100,
        resetAt: iso(at("20:00")),
        status: "ok",
        source: "endpoint",
        observedAt: iso(nowMs),
      },
    ]);
    expect(view()).toBe(true);
    expect(cache.get("claude", "claude-max")?.hasBeenExhausted).toBe(false);
    expect(at("16:00")).toBeGreaterThan(nowMs);
  });

  it("a per-model weekly cap at 0 % gates only that model", () => {
    const nowMs = at("10:00");
    const now = () => nowMs;
    const cooldowns = createCooldownBook({ now });
    const cache = createQuotaCache({ now, cooldowns });
    cache.observe("claude-max", [
      {
        windowId: "5h",
        remainingPercent: 64,
        resetAt: iso(at("13:00")),
        status: "ok",
        source: "endpoint",
        observedAt: iso(nowMs),
      },
      {
        windowId: "7d",
        remainingPercent: 41,
        resetAt: iso(at("23:00")),
        status: "ok",
        source: "endpoint",
        observedAt: iso(nowMs),
      },
      {
        windowId: "7d:opus",
        scope: { model: "opus" },
        remainingPercent: 0,
        resetAt: iso(Date.parse("2026-03-06T09:00:00Z")),
        status: "exhausted",
        source: "endpoint",
        observedAt: iso(nowMs),
      },
    ]);
    cooldowns.fail(
      "claude-max",
      { kind: "window_exhausted", retryAt: null, resetAt: null, scope: { model: "opus" } },
      { model: "claude-opus-4-1" },
    );
    const opus = cache.get("claude", "claude-max", "claude-opus-4-1");
    const sonnet = cache.get("claude", "claude-max", "claude-sonnet-4-5");
    expect(opus?.status).toBe("exhausted");
    expect(inPool(opus, cooldowns.isCoolingDown("claude-max", "claude-opus-4-1"), nowMs)).toBe(
      false,
    );
    expect(sonnet).toMatchObject({ status: "available", remainingPercent: 41 });
    expect(inPool(sonnet, cooldowns.isCoolingDown("claude-max", "claude-sonnet-4-5"), nowMs)).toBe(
      true,
    );
  });
});
