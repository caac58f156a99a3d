import { describe, expect, it } from "vitest";
import { createCooldownBook } from "./cooldown-book";
import { EVIDENCE_REWRITE_INTERVAL_MS } from "./overage-evidence-book";
import { createQuotaCache } from "./quota-cache";
import { parseResponseSignals } from "./signals/parse-response-signals";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

describe("quota cache: evidence, served readings and reset instants", () => {
  it("a rising Copilot overage_count is recorded as evidence on", () => {
    const cache = createQuotaCache({ now: () => T0 });
    const off = { evidence: "off" as const, source: "copilot-usage", overageCount: 0 };
    cache.observeEvidence("copilot", { ...off, observedAt: iso(T0) });
    expect(cache.overageEvidence("copilot").map((o) => o.evidence)).toEqual(["off"]);
    cache.observeEvidence("copilot", { ...off, observedAt: iso(T0 + 60_000), overageCount: 3 });
    const [first, second] = cache.overageEvidence("copilot");
    expect(first).toMatchObject({
      evidence: "on",
      source: "copilot-overage-count",
      overageCount: 3,
    });
    expect(second).toMatchObject({ evidence: "off", observedAt: iso(T0 + 60_000) });
  });

  it("the same evidence repeated on every response is written at most once per interval", () => {
    const cache = createQuotaCache({ now: () => T0 });
    const on = { evidence: "on" as const, source: "credits", detail: "bills after its window" };
    cache.observeEvidence("openrouter", { ...on, observedAt: iso(T0) });
    cache.observeEvidence("openrouter", { ...on, observedAt: iso(T0 + 1_000) });
    cache.observeEvidence("openrouter", {
      ...on,
      observedAt: iso(T0 + EVIDENCE_REWRITE_INTERVAL_MS - 1),
    });
    expect(cache.overageEvidence("openrouter")).toEqual([{ ...on, observedAt: iso(T0) }]);
    cache.observeEvidence("openrouter", {
      ...on,
      observedAt: iso(T0 + EVIDENCE_REWRITE_INTERVAL_MS),
    });
    expect(cache.overageEvidence("openrouter")[0]?.observedAt).toBe(
      iso(T0 + EVIDENCE_REWRITE_INTERVAL_MS),
    );
    // A change of kind is never held back.
    cache.observeEvidence("openrouter", {
      evidence: "off",
      source: "credits",
      observedAt: iso(T0 + EVIDENCE_REWRITE_INTERVAL_MS + 1),
    });
    expect(cache.overageEvidence("openrouter").map((o) => o.evidence)).toEqual(["off", "on"]);
  });

  it("malformed evidence is ignored, never thrown", () => {
    const cache = createQuotaCache({ now: () => T0 });
    cache.observeEvidence("c", { evidence: "maybe", observedAt: iso(T0), source: "x" } as never);
    cache.observeEvidence("c", { evidence: "on", observedAt: "yesterday", source: "x" });
    expect(cache.overageEvidence("c")).toEqual([]);
  });

  it("a money refusal marks no quota and the book backs off briefly", () => {
    const cache = createQuotaCache({ now: () => T0 });
    const book = createCooldownBook({ now: () => T0 });
    const signals = parseResponseSignals("claude", {
      status: 400,
      headers: {},
      body: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "Third-party apps now draw from your extra usage, not your plan limits.",
        },
      },
      observedAtMs: T0,
    });
    cache.observeFailure("claude-max", signals.failure!);
    cache.observeEvidence("claude-max", signals.evidence!);
    expect(cache.get("claude", "claude-max")).toBeUndefined();
    expect(cache.overageEvidence("claude-max")[0]?.evidence).toBe("on");
    expect(book.fail("claude-max", signals.failure!).durationMs).toBe(1_000);
  });

  it("P3: a served verification is scoped, superseded by a real reading, and ages out with ttlMs", () => {
    let nowMs = T0;
    const cache = createQuotaCache({ now: () => nowMs, ttlMs: 180_000 });
    cache.recordServed("kimi", "kimi-k2");
    expect(cache.get("kimi", "kimi", "kimi-k2")?.status).toBe("available");
    expect(cache.get("kimi", "kimi")).toBeUndefined();
    nowMs += 180_001;
    expect(cache.get("kimi", "kimi", "kimi-k2")).toBeUndefined();
    cache.recordServed("kimi");
    cache.observe("kimi", [
      {
        windowId: "5h",
        remainingPercent: 40,
        resetAt: iso(nowMs + 3_600_000),
        status: "ok",
        source: "endpoint",
        observedAt: iso(nowMs),
      },
    ]);
    const state = cache.get("kimi", "kimi");
    expect(state?.windows.map((w) => w.windowId)).toEqual(["5h"]);
    expect(state?.remainingPercent).toBe(40);
  });

  it("S2a: known resets are listed per connection, soonest first", () => {
    const cache = createQuotaCache({ now: () => T0 });
    cache.observe("claude-max", [
      {
        windowId: "7d",
        remainingPercent: 50,
        resetAt: iso(T0 + 86_400_000),
        status: "ok",
        source: "header",
        observedAt: iso(T0),
      },
      {
        windowId: "5h",
        remainingPercent: 0,
        resetAt: iso(T0 + 3_600_000),
        status: "exhausted",
        source: "header",
        observedAt: iso(T0),
      },
      {
        windowId: "7d:opus",
        scope: { model: "opus" },
        remainingPercent: 10,
        resetAt: iso(T0 + 7_200_000),
        status: "ok",
        source: "header",
        observedAt: iso(T0),
      },
    ]);
    cache.observe("codex", [
      {
        windowId: "5h",
        remainingPercent: 20,
        resetAt: null,
        status: "ok",
        source: "header",
        observedAt: iso(T0),
      },
    ]);
    expect(cache.knownResets()).toEqual([
      {
        connectionId: "claude-max",
        windowId: "5h",
        resetAt: iso(T0 + 3_600_000),
        source: "header",
      },
      {
        connectionId: "claude-max",
        windowId: "7d:opus",
        model: "opus",
        resetAt: iso(T0 + 7_200_000),
        source: "header",
      },
      {
        connectionId: "claude-max",
        windowId: "7d",
        resetAt: iso(T0 + 86_400_000),
        source: "header",
      },
    ]);
    expect(cache.knownResets(["codex"])).toEqual([]);
  });
});
