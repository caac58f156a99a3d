import { describe, expect, it } from "vitest";
import type { AbortListener, AbortSignalLike } from "../upstream";
import {
  createWaitingRoom,
  type PlanLook,
  type WaitEnd,
  type Waiter,
  type WaitTimers,
} from "./waiting-room";

const T0 = Date.parse("2026-11-30T10:00:00Z");

/** A clock and timers the test moves by hand: `advance` fires every timer that falls due. */
function manualTime() {
  let nowMs = T0;
  let nextId = 0;
  const pending = new Map<number, { atMs: number; callback: () => void }>();
  const timers: WaitTimers = {
    set(callback, ms) {
      pending.set(++nextId, { atMs: nowMs + ms, callback });
      return nextId;
    },
    clear(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    now: () => nowMs,
    timers,
    pending: () => pending.size,
    advance(ms: number) {
      const target = nowMs + ms;
      while (true) {
        const due = [...pending].filter(([, t]) => t.atMs <= target);
        if (due.length === 0) break;
        due.sort(([, a], [, b]) => a.atMs - b.atMs);
        const [id, next] = due[0]!;
        pending.delete(id);
        nowMs = Math.max(nowMs, next.atMs);
        next.callback();
      }
      nowMs = target;
    },
  };
}

/** The plan's state as every waiter of the test sees it. */
function plan(returnAtMs: number | undefined) {
  const state = { back: false, returnAtMs, looks: 0 };
  const look = (): PlanLook => {
    state.looks++;
    return state.back ? { back: true } : { back: false, returnAtMs: state.returnAtMs };
  };
  return { state, look };
}

class TestSignal implements AbortSignalLike {
  aborted = false;
  private listeners: AbortListener[] = [];
  addEventListener(_type: "abort", listener: AbortListener) {
    this.listeners.push(listener);
  }
  removeEventListener(_type: "abort", listener: AbortListener) {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }
  abort() {
    this.aborted = true;
    for (const listener of this.listeners.splice(0)) {
      if (typeof listener === "function") listener();
      else listener.handleEvent();
    }
  }
  get listenerCount() {
    return this.listeners.length;
  }
}

function waiter(look: () => PlanLook, deadlineMs: number, extra: Partial<Waiter> = {}): Waiter {
  return { deadlineMs, lookKey: "auto/subscription|key", look, ...extra };
}

/** Records how each wait ended, in the order they ended. */
function track(promises: Promise<WaitEnd>[]) {
  const ended: { index: number; end: WaitEnd }[] = [];
  promises.forEach((promise, index) => {
    void promise.then((end) => ended.push({ index, end }));
  });
  return ended;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("waiting room (ladder.md §17)", () => {
  it("WAIT3/WAIT4: releases waiters in arrival order once the plan is back, the next only after the one before says done", async () => {
    const time = manualTime();
    const room = createWaitingRoom({ now: time.now, timers: time.timers, maxWaiting: 10 });
    const { state, look } = plan(T0 + 5_000);
    const ends = [0, 1, 2].map(() => room.ticket(waiter(look, T0 + 30_000)).hold("plan"));
    const ended = track(ends);
    room.wake("plan");
    await flush();
    expect(ended).toEqual([]);

    state.back = true;
    room.wake("plan");
    await flush();
    expect(ended.map((e) => e.index)).toEqual([0]);
    expect(room.rooms()).toEqual([{ connectionId: "plan", waiting: 2, returnAtMs: T0 + 5_000 }]);
    // The first may be the probe: nobody else goes until it says done.
    time.advance(2_000);
    await flush();
    expect(ended).toHaveLength(1);
    (ended[0]!.end as Extract<WaitEnd, { kind: "released" }>).done();
    await flush();
    expect(ended.map((e) => e.index)).toEqual([0, 1]);
    (ended[1]!.end as Extract<WaitEnd, { kind: "released" }>).done();
    await flush();
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual([
      "0:released",
      "1:released",
      "2:released",
    ]);
    (ended[2]!.end as Extract<WaitEnd, { kind: "released" }>).done();
    expect(room.rooms()).toEqual([]);
    expect(time.pending()).toBe(0);
  });

  it("WAIT4: the clock alone releases them (a reading that came without a wake), looking at most every maxSleepMs", async () => {
    const time = manualTime();
    const room = createWaitingRoom({
      now: time.now,
      timers: time.timers,
      maxWaiting: 10,
      maxSleepMs: 500,
    });
    const { state, look } = plan(T0 + 5_000);
    const ended = track([room.ticket(waiter(look, T0 + 30_000)).hold("plan")]);
    time.advance(499);
    await flush();
    expect(state.looks).toBe(0);
    time.advance(1);
    await flush();
    expect(state.looks).toBe(1);
    state.back = true;
    time.advance(500);
    await flush();
    expect(ended.map((e) => e.end.kind)).toEqual(["released"]);
  });

  it("WAIT3: waiters with the same pool share one look per pass", async () => {
    const time = manualTime();
    const room = createWaitingRoom({ now: time.now, timers: time.timers, maxWaiting: 100 });
    const { state, look } = plan(T0 + 5_000);
    for (let i = 0; i < 50; i++) void room.ticket(waiter(look, T0 + 30_000)).hold("plan");
    room.wake("plan");
    expect(state.looks).toBe(1);
  });

  it("WAIT3: at most maxWaiting per plan; the next is answered full at once, another plan's line is apart, and a waiter back in line is never refused", async () => {
    const time = manualTime();
    const room = createWaitingRoom({ now: time.now, timers: time.timers, maxWaiting: 2 });
    const { state, look } = plan(T0 + 5_000);
    const first = room.ticket(waiter(look, T0 + 30_000));
    const ended = track([
      first.hold("plan"),
      room.ticket(waiter(look, T0 + 30_000)).hold("plan"),
      room.ticket(waiter(look, T0 + 30_000)).hold("plan"),
      room.ticket(waiter(look, T0 + 30_000)).hold("other-plan"),
    ]);
    await flush();
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["2:full"]);
    expect(room.rooms().map((r) => [r.connectionId, r.waiting])).toEqual([
      ["plan", 2],
      ["other-plan", 1],
    ]);

    state.back = true;
    room.wake("plan");
    await flush();
    const released = ended.find((e) => e.index === 0)?.end;
    expect(released?.kind).toBe("released");
    // It found the plan gone again (a probe answered 429) and goes back in line: first, even
    // though a newcomer filled the room meanwhile.
    state.back = false;
    const later = track([room.ticket(waiter(look, T0 + 30_000)).hold("plan"), first.hold("plan")]);
    (released as Extract<WaitEnd, { kind: "released" }>).done();
    expect(room.rooms().find((r) => r.connectionId === "plan")?.waiting).toBe(3);
    state.back = true;
    room.wake("plan");
    await flush();
    expect(later.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["1:released"]);
    room.close();
    await flush();
    expect(later.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["1:released", "0:closed"]);
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual([
      "2:full",
      "0:released",
      "1:closed",
      "3:closed",
    ]);
  });

  it("WAIT3: a client that goes away leaves the line at once and is never released; the others keep their order", async () => {
    const time = manualTime();
    const room = createWaitingRoom({ now: time.now, timers: time.timers, maxWaiting: 10 });
    const { state, look } = plan(T0 + 5_000);
    const signal = new TestSignal();
    const ends = [
      room.ticket(waiter(look, T0 + 30_000, { signal })).hold("plan"),
      room.ticket(waiter(look, T0 + 30_000)).hold("plan"),
    ];
    const ended = track(ends);
    expect(signal.listenerCount).toBe(1);
    signal.abort();
    await flush();
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["0:gone"]);
    expect(room.rooms()[0]?.waiting).toBe(1);
    state.back = true;
    room.wake("plan");
    await flush();
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["0:gone", "1:released"]);
    // A signal already aborted never gets in.
    expect(await room.ticket(waiter(look, T0 + 30_000, { signal })).hold("plan")).toEqual({
      kind: "gone",
    });
  });

  it("WAIT5: a wait ends at its deadline with no wake, and at once when the plan's new return is past it", async () => {
    const time = manualTime();
    const room = createWaitingRoom({ now: time.now, timers: time.timers, maxWaiting: 10 });
    const { state, look } = plan(T0 + 5_000);
    const ended = track([
      room.ticket(waiter(look, T0 + 3_000)).hold("plan"),
      room.ticket(waiter(look, T0 + 60_000)).hold("plan"),
      room.ticket(waiter(look, T0 + 600_000)).hold("plan"),
    ]);
    time.advance(3_000);
    await flush();
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["0:expired"]);
    // A fresh reading says the window is still spent, back in two minutes.
    state.returnAtMs = T0 + 120_000;
    room.wake("plan");
    await flush();
    expect(ended.map((e) => `${e.index}:${e.end.kind}`)).toEqual(["0:expired", "1:expired"]);
    state.returnAtMs = undefined;
    room.wake("plan");
    await flush();
    expect(ended.map((e) => e.end.kind)).toEqual(["expired", "expired", "expired"]);
  });

  it("WAIT6: the alarm of a waiter fires once, at its instant, only while it waits", async () => {
    const time = manualTime();
    const room = createWaitingRoom({ now: time.now, timers: time.timers, maxWaiting: 10 });
    const { state, look } = plan(T0 + 60_000);
    let alarms = 0;
    const ticket = room.ticket(
      waiter(look, T0 + 120_000, { alarmAtMs: T0 + 10_000, onAlarm: () => alarms++ }),
    );
    const first = ticket.hold("plan");
    time.advance(9_999);
    expect(alarms).toBe(0);
    time.advance(1);
    expect(alarms).toBe(1);
    state.back = true;
    room.wake("plan");
    const released = (await first) as Extract<WaitEnd, { kind: "released" }>;
    state.back = false;
    const again = ticket.hold("plan");
    released.done();
    time.advance(20_000);
    expect(alarms).toBe(1);
    room.close();
    expect(await again).toEqual({ kind: "closed" });
    expect(time.pending()).toBe(0);
  });
});
