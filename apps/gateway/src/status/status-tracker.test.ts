import { describe, expect, it } from "vitest";
import { createMemoryHistoryStore, HISTORY_BUCKET_MS, HISTORY_RETENTION_MS } from "./history-store";
import { createStatusTracker } from "./status-tracker";

const T = Date.parse("2026-11-30T10:00:00Z");

describe("the status tracker", () => {
  it("remembers the last served rung per routing id and counts requests per rung per bucket", async () => {
    let now = T;
    const store = createMemoryHistoryStore();
    const tracker = createStatusTracker({ store, now: () => now });
    let changes = 0;
    tracker.onChange(() => changes++);
    tracker.served({
      modelId: "auto/thrifty",
      rung: "subscription",
      connection: "plan",
      model: "m",
      atMs: now,
    });
    now += HISTORY_BUCKET_MS;
    tracker.served({
      modelId: "auto/thrifty",
      rung: "cheap",
      connection: "or",
      model: "q",
      atMs: now,
    });
    tracker.served({
      modelId: "auto/subscription",
      rung: "subscription",
      connection: "plan",
      model: "m",
      atMs: now,
    });
    expect(changes).toBe(3);
    expect(tracker.lastServed()["auto/thrifty"]?.rung).toBe("cheap");
    expect(tracker.lastServed()["auto/subscription"]?.rung).toBe("subscription");
    // Unwritten buckets are part of the history already…
    const pending = await tracker.history(T, now + 1);
    expect(pending.map((b) => b.requests)).toEqual([
      { subscription: 1 },
      { cheap: 1, subscription: 1 },
    ]);
    expect(await store.read(T, now + 1)).toEqual([]);
    // …and a flush writes them once (no double count when read back merged).
    await tracker.flush();
    expect((await store.read(T, now + 1)).map((b) => b.requests)).toEqual(
      pending.map((b) => b.requests),
    );
    expect((await tracker.history(T, now + 1)).map((b) => b.requests)).toEqual(
      pending.map((b) => b.requests),
    );
  });

  it("keeps the latest level reading in its bucket and prunes past the retention on flush", async () => {
    let now = T;
    const store = createMemoryHistoryStore();
    await store.add([
      { startMs: T - HISTORY_RETENTION_MS - HISTORY_BUCKET_MS, requests: { cheap: 1 }, levels: {} },
    ]);
    const tracker = createStatusTracker({ store, now: () => now });
    tracker.recordLevels({ "remaining:plan:5h": 90 });
    now += 1_000;
    tracker.recordLevels({ "remaining:plan:5h": 88 });
    await tracker.close();
    const all = await store.read(0, now + 1);
    expect(all).toEqual([
      { startMs: T, requests: {}, levels: { "remaining:plan:5h": { value: 88, atMs: T + 1_000 } } },
    ]);
  });
});
