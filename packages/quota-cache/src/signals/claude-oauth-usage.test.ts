import { describe, expect, it } from "vitest";
import usage from "./__fixtures__/claude-oauth-usage.json";
import usageWithLimits from "./__fixtures__/claude-oauth-usage-limits.json";
import { parseClaudeOauthUsage } from "./claude-oauth-usage";

const observedAtMs = Date.parse("2026-01-02T15:00:00.000Z");

describe("parseClaudeOauthUsage", () => {
  it("turns percent used into remaining and keeps microsecond resets exact to the ms", () => {
    expect(parseClaudeOauthUsage(usage, observedAtMs)).toEqual([
      {
        windowId: "5h",
        remainingPercent: 76,
        resetAt: "2026-01-02T19:59:59.600Z",
        windowSeconds: 18000,
        status: "ok",
        source: "endpoint",
        observedAt: "2026-01-02T15:00:00.000Z",
        rawUsedPercent: 24,
      },
      {
        windowId: "7d",
        remainingPercent: 64,
        resetAt: "2026-01-08T06:59:59.600Z",
        windowSeconds: 604800,
        status: "ok",
        source: "endpoint",
        observedAt: "2026-01-02T15:00:00.000Z",
        rawUsedPercent: 36,
      },
      {
        windowId: "7d:sonnet",
        scope: { model: "sonnet" },
        remainingPercent: 99,
        resetAt: "2026-01-08T14:59:59.600Z",
        windowSeconds: 604800,
        status: "ok",
        source: "endpoint",
        observedAt: "2026-01-02T15:00:00.000Z",
        rawUsedPercent: 1,
      },
    ]);
  });

  it("reads limits[]: weekly_scoped by display name, severity warning, surface entries ignored", () => {
    const windows = parseClaudeOauthUsage(usageWithLimits, observedAtMs);
    const byId = Object.fromEntries(windows.map((w) => [w.windowId, w]));
    expect(Object.keys(byId).sort()).toEqual(["5h", "7d", "7d:fable", "7d:opus"]);
    expect(byId["7d:fable"]).toMatchObject({
      scope: { model: "fable" },
      remainingPercent: 39,
      status: "warning",
      resetAt: "2026-08-04T14:00:00.408Z",
    });
    expect(byId["7d:opus"]).toMatchObject({ scope: { model: "opus" }, status: "exhausted" });
    expect(byId["7d"]?.remainingPercent).toBe(42.7);
  });

  it("keeps a window whose reset is null (not started) with a null reset", () => {
    const [window] = parseClaudeOauthUsage(
      { five_hour: { utilization: 0, resets_at: null } },
      observedAtMs,
    );
    expect(window).toMatchObject({ windowId: "5h", remainingPercent: 100, resetAt: null });
  });

  it("gives nothing for payloads that are not objects", () => {
    expect(parseClaudeOauthUsage(null, observedAtMs)).toEqual([]);
    expect(parseClaudeOauthUsage("oops", observedAtMs)).toEqual([]);
  });
});
