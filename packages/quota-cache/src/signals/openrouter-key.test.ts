import { describe, expect, it } from "vitest";
import key from "./__fixtures__/openrouter-key.json";
import { parseOpenRouterKey } from "./openrouter-key";

const observedAtMs = Date.parse("2026-08-12T15:00:00.000Z");

describe("parseOpenRouterKey", () => {
  it("reads the credit limit and the free daily counter", () => {
    expect(parseOpenRouterKey(key, observedAtMs)).toEqual([
      {
        windowId: "credits",
        remainingPercent: 74.5,
        resetAt: "2026-09-01T00:00:00.000Z",
        status: "ok",
        source: "endpoint",
        observedAt: "2026-08-12T15:00:00.000Z",
        rawUsedPercent: 25.5,
      },
      {
        windowId: "free_daily",
        scope: { model: ":free" },
        remainingPercent: 76,
        resetAt: "2026-08-13T00:00:00.000Z",
        windowSeconds: 86400,
        status: "ok",
        source: "endpoint",
        observedAt: "2026-08-12T15:00:00.000Z",
      },
    ]);
  });

  it("weekly limits reset Monday 00:00 UTC; a key without a limit has no credit window", () => {
    // 2026-08-12 is a Wednesday.
    const weekly = parseOpenRouterKey(
      { data: { limit: 10, limit_remaining: 0, limit_reset: "weekly" } },
      observedAtMs,
    );
    expect(weekly[0]).toMatchObject({ resetAt: "2026-08-17T00:00:00.000Z", status: "exhausted" });
    expect(
      parseOpenRouterKey({ data: { limit: null, limit_remaining: null } }, observedAtMs),
    ).toEqual([]);
  });
});
