import { afterEach, describe, expect, it, vi } from "vitest";
import { GatewayError } from "../errors";
import type { AbortListener, AbortSignalLike } from "../upstream";
import {
  type ConnectionSlot,
  ConnectionSlots,
  localCapacityError,
  type SlotWaitOutcome,
  UNLIMITED_SLOT,
} from "./connection-slots";

/** A client signal the test fires by hand. */
function clientSignal(): AbortSignalLike & { fire(): void; listeners(): number } {
  let listeners: AbortListener[] = [];
  return {
    aborted: false,
    addEventListener(_type, listener) {
      listeners.push(listener);
    },
    removeEventListener(_type, listener) {
      listeners = listeners.filter((entry) => entry !== listener);
    },
    fire() {
      (this as { aborted: boolean }).aborted = true;
      for (const listener of listeners.splice(0)) {
        if (typeof listener === "function") listener();
        else listener.handleEvent();
      }
    },
    listeners: () => listeners.length,
  };
}

function slotsOf(maxConcurrent: number | undefined, maxQueueWaitMs = 30_000) {
  const counted: [string, SlotWaitOutcome][] = [];
  const slots = new ConnectionSlots(
    [
      { id: "limited", maxConcurrent, maxQueueWaitMs },
      { id: "open", maxQueueWaitMs },
    ],
    (connection, outcome) => counted.push([connection, outcome]),
  );
  return { slots, counted };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("ConnectionSlots", () => {
  it("gives a connection without maxConcurrent the one shared slot, every time", () => {
    const { slots } = slotsOf(2);
    expect(slots.take("open")).toBe(UNLIMITED_SLOT);
    expect(slots.take("open")).toBe(UNLIMITED_SLOT);
    expect(slots.limitOf("open")).toBeUndefined();
  });

  it("hands out maxConcurrent slots, then none until one is given back", () => {
    const { slots } = slotsOf(2);
    const first = slots.take("limited")!;
    const second = slots.take("limited")!;
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(slots.take("limited")).toBeNull();
    first.release();
    expect(slots.limitOf("limited")!.inUse).toBe(1);
    expect(slots.take("limited")).not.toBeNull();
  });

  it("gives a slot back exactly once, however often release and end are called", () => {
    const { slots } = slotsOf(1);
    const slot = slots.take("limited")!;
    slot.release();
    slot.release();
    slot.end();
    const next = slots.take("limited")!;
    expect(next).not.toBeNull();
    expect(slots.limitOf("limited")!.inUse).toBe(1);
    expect(slots.take("limited")).toBeNull();
  });

  it("keeps a handed-off slot through the dispatcher's release until its stream ends", () => {
    const { slots } = slotsOf(1);
    const slot = slots.take("limited")!;
    slot.handOff();
    slot.release(); // the dispatcher's finally, while the stream still runs
    expect(slots.take("limited")).toBeNull();
    slot.end(); // the stream ended
    slot.end();
    expect(slots.limitOf("limited")!.inUse).toBe(0);
    expect(slots.take("limited")).not.toBeNull();
  });

  it("serves waiters first come, first served, ahead of a request arriving later", async () => {
    const { slots, counted } = slotsOf(1);
    const held = slots.take("limited")!;
    const order: string[] = [];
    const waits = ["a", "b"].map((name) =>
      slots.wait("limited", undefined).then((slot) => {
        order.push(name);
        return slot;
      }),
    );
    expect(slots.limitOf("limited")!.queued).toBe(2);
    held.release();
    // The freed slot went to "a"; a newcomer finds the connection still full.
    expect(slots.take("limited")).toBeNull();
    const a = (await waits[0]) as ConnectionSlot;
    a.release();
    const b = (await waits[1]) as ConnectionSlot;
    expect(order).toEqual(["a", "b"]);
    b.release();
    expect(slots.limitOf("limited")!.inUse).toBe(0);
    expect(counted).toEqual([
      ["limited", "queued"],
      ["limited", "queued"],
    ]);
  });

  it("keeps a connection's slots in flight and its line through configure, and lets a raised limit in", async () => {
    const { slots } = slotsOf(1);
    const held = slots.take("limited")!;
    const waiting = slots.wait("limited", undefined);
    // A reload with the same limit: the held slot still counts.
    slots.configure([{ id: "limited", maxConcurrent: 1, maxQueueWaitMs: 30_000 }]);
    expect(slots.take("limited")).toBeNull();
    expect(slots.limitOf("limited")!.queued).toBe(1);
    // A raised limit serves the head of the line at once.
    slots.configure([{ id: "limited", maxConcurrent: 2, maxQueueWaitMs: 30_000 }]);
    const served = (await waiting) as ConnectionSlot;
    expect(slots.limitOf("limited")!.inUse).toBe(2);
    held.release();
    served.release();
    expect(slots.limitOf("limited")!.inUse).toBe(0);
    // A connection that loses its limit is unlimited from then on.
    slots.configure([{ id: "limited", maxQueueWaitMs: 30_000 }]);
    expect(slots.take("limited")).toBe(UNLIMITED_SLOT);
  });

  it("ends a wait without a slot after maxQueueWaitMs and leaves the line", async () => {
    vi.useFakeTimers();
    const { slots, counted } = slotsOf(1, 500);
    const held = slots.take("limited")!;
    const waiting = slots.wait("limited", undefined);
    await vi.advanceTimersByTimeAsync(499);
    expect(slots.limitOf("limited")!.queued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toBeNull();
    expect(slots.limitOf("limited")!.queued).toBe(0);
    expect(counted).toEqual([["limited", "refused"]]);
    // The slot given back later is free, not handed to the request that left.
    held.release();
    expect(slots.limitOf("limited")!.inUse).toBe(0);
  });

  it("with maxQueueWaitMs 0 answers at once, queueing nothing", async () => {
    const { slots, counted } = slotsOf(1, 0);
    slots.take("limited");
    expect(await slots.wait("limited", undefined)).toBeNull();
    expect(slots.limitOf("limited")!.queued).toBe(0);
    expect(counted).toEqual([["limited", "refused"]]);
  });

  it("lets a client that goes away leave the line with client_closed_request", async () => {
    const { slots, counted } = slotsOf(1);
    const held = slots.take("limited")!;
    const signal = clientSignal();
    const waiting = slots.wait("limited", signal);
    const after = slots.wait("limited", undefined);
    signal.fire();
    const error = await waiting.catch((caught: unknown) => caught);
    expect(GatewayError.isInstance(error) && error.code).toBe("client_closed_request");
    expect(slots.limitOf("limited")!.queued).toBe(1);
    held.release();
    // The slot skipped the request that left and went to the one behind it.
    expect(await after).not.toBeNull();
    expect(counted).toEqual([
      ["limited", "abandoned"],
      ["limited", "queued"],
    ]);
    expect(signal.listeners()).toBe(0);
  });

  it("refuses a wait whose client is already gone, queueing nothing", async () => {
    const { slots } = slotsOf(1);
    slots.take("limited");
    const signal = clientSignal();
    signal.fire();
    const error = await slots.wait("limited", signal).catch((caught: unknown) => caught);
    expect(GatewayError.isInstance(error) && error.code).toBe("client_closed_request");
    expect(slots.limitOf("limited")!.queued).toBe(0);
  });

  it("stops listening to a served waiter's signal", async () => {
    const { slots } = slotsOf(1);
    const held = slots.take("limited")!;
    const signal = clientSignal();
    const waiting = slots.wait("limited", signal);
    expect(signal.listeners()).toBe(1);
    held.release();
    expect(await waiting).not.toBeNull();
    expect(signal.listeners()).toBe(0);
  });
});

describe("localCapacityError", () => {
  it("is local_capacity with Retry-After 1 and says the limit is the gateway's own", () => {
    const error = localCapacityError(
      { id: "claude-max", maxConcurrent: 2, maxQueueWaitMs: 30_000 },
      30_000,
    );
    expect(error.code).toBe("local_capacity");
    expect(error.retryAfterSec).toBe(1);
    expect(error.message).toContain("claude-max");
    expect(error.message).toContain("maxConcurrent 2");
    expect(error.message).toContain("gateway's own");
    expect(error.details).toMatchObject({
      connection: "claude-max",
      max_concurrent: 2,
      waited_ms: 30_000,
    });
  });
});
