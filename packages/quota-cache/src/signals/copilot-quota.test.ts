import { describe, expect, it } from "vitest";
import free from "./__fixtures__/copilot-user-free.json";
import overdrawn from "./__fixtures__/copilot-user-overdrawn.json";
import paid from "./__fixtures__/copilot-user-paid.json";
import { parseCopilotQuota } from "./copilot-quota";

const observedAtMs = Date.parse("2026-02-10T13:40:44.935Z");

describe("parseCopilotQuota", () => {
  it("reads premium_interactions percent remaining; unlimited snapshots give no window", () => {
    expect(parseCopilotQuota(paid, observedAtMs)).toEqual([
      {
        windowId: "premium_interactions",
        remainingPercent: 70.28,
        resetAt: "2026-03-01T00:00:00.000Z",
        status: "ok",
        source: "endpoint",
        observedAt: "2026-02-10T13:40:44.935Z",
        rawUsedPercent: 29.72,
      },
    ]);
  });

  it("clamps a negative percent_remaining to 0 and keeps the raw overage; bare date is UTC midnight", () => {
    const [window] = parseCopilotQuota(overdrawn, observedAtMs);
    expect(window).toMatchObject({
      windowId: "premium_interactions",
      remainingPercent: 0,
      status: "exhausted",
      resetAt: "2026-03-01T00:00:00.000Z",
    });
    expect(window?.rawUsedPercent).toBeCloseTo(100.333333, 5);
  });

  it("reads the free plan's chat counts against the monthly total", () => {
    expect(parseCopilotQuota(free, observedAtMs)).toEqual([
      expect.objectContaining({
        windowId: "chat",
        remainingPercent: 24,
        resetAt: "2025-02-11T00:00:00.000Z",
      }),
    ]);
  });

  it("computes the percent from remaining / entitlement when percent_remaining is missing", () => {
    const [window] = parseCopilotQuota(
      {
        quota_reset_date: "2026-03-01T00:00:00Z",
        quota_snapshots: {
          premium_interactions: { entitlement: 300, remaining: 75, unlimited: false },
        },
      },
      observedAtMs,
    );
    expect(window).toMatchObject({ remainingPercent: 25, resetAt: "2026-03-01T00:00:00.000Z" });
  });
});
