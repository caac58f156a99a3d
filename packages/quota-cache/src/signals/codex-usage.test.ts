import { describe, expect, it } from "vitest";
import usage from "./__fixtures__/codex-usage.json";
import { parseCodexUsage } from "./codex-usage";

const observedAtMs = 1_767_369_994_000;

describe("parseCodexUsage", () => {
  it("reads wham/usage windows by limit_window_seconds", () => {
    const windows = parseCodexUsage(usage, observedAtMs);
    const byId = Object.fromEntries(windows.map((w) => [w.windowId, w]));
    expect(byId["5h"]).toMatchObject({
      remainingPercent: 97,
      resetAt: new Date(1_767_385_852_000).toISOString(),
      windowSeconds: 18000,
      status: "ok",
      source: "endpoint",
    });
    expect(byId["7d"]).toMatchObject({ remainingPercent: 91, windowSeconds: 604800 });
  });

  it("additional limits are model-scoped; limit_reached marks the spent window", () => {
    const windows = parseCodexUsage(usage, observedAtMs);
    const spark = windows.filter((w) => w.scope?.model === "gpt-5.3-codex-spark");
    expect(spark.map((w) => [w.windowId, w.status])).toEqual([
      ["5h:codex_bengalfox", "exhausted"],
      ["7d:codex_bengalfox", "ok"],
    ]);
  });

  it("skips the code-review limit, which never gates API traffic", () => {
    const windows = parseCodexUsage(usage, observedAtMs);
    expect(windows.length).toBe(4);
  });

  it("reads the in-band codex.rate_limits event", () => {
    const windows = parseCodexUsage(
      {
        type: "codex.rate_limits",
        plan_type: "plus",
        rate_limits: {
          primary: { used_percent: 7.0, window_minutes: 300, reset_at: 1763483205 },
          secondary: { used_percent: 0, window_minutes: 0 },
        },
      },
      observedAtMs,
    );
    expect(windows).toEqual([
      expect.objectContaining({ windowId: "5h", remainingPercent: 93, source: "event" }),
    ]);
  });

  it("falls back to reset_after_seconds when reset_at is missing", () => {
    const [window] = parseCodexUsage(
      {
        rate_limit: {
          primary_window: {
            used_percent: 50,
            limit_window_seconds: 18000,
            reset_after_seconds: 60,
          },
        },
      },
      observedAtMs,
    );
    expect(window?.resetAt).toBe(new Date(observedAtMs + 60_000).toISOString());
  });
});
