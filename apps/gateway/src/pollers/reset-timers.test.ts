import type { KnownReset } from "@planfirst/quota-cache";
import { describe, expect, it } from "vitest";
import { createResetTimers } from "./reset-timers";

const T0 = Date.parse("2026-11-30T10:00:00Z");

function reset(connectionId: string, atMs: number, windowId = "5h"): KnownReset {
  return { connectionId, windowId, resetAt: new Date(atMs).toISOString(), source: "header" };
}

describe("S2a reset timers", () => {
  it("acts once per passed reset, skew after it, only for the plan connections, and re-reads resets on every tick", () => {
    let nowMs = T0;
    let resets: KnownReset[] = [reset("plan", T0 + 60_000), reset("other", T0 + 1_000)];
    const fired: string[] = [];
    const timers = createResetTimers({
      cache: { knownResets: (ids) => resets.filter((r) => ids?.includes(r.connectionId)) },
      connectionIds: ["plan"],
      now: () => nowMs,
      skewMs: 250,
      onReset: (id, r) => fired.push(`${id}@${r.resetAt}`),
    });
    try {
      nowMs = T0 + 60_000 + 249;
      timers.tick();
      expect(fired).toEqual([]);
      nowMs = T0 + 60_000 + 250;
      timers.tick();
      timers.tick();
      expect(fired).toEqual([`plan@${new Date(T0 + 60_000).toISOString()}`]);
      // A new reading with a new reset arms the timer again.
      resets = [reset("plan", T0 + 120_000)];
      nowMs = T0 + 121_000;
      timers.tick();
      expect(fired).toHaveLength(2);
    } finally {
      timers.close();
    }
  });

  it("does nothing after close", () => {
    let nowMs = T0;
    const fired: string[] = [];
    const timers = createResetTimers({
      cache: { knownResets: () => [reset("plan", T0 + 10)] },
      connectionIds: ["plan"],
      now: () => nowMs,
      onReset: (id) => fired.push(id),
    });
    timers.close();
    nowMs = T0 + 10_000;
    timers.tick();
    expect(fired).toEqual([]);
  });
});
