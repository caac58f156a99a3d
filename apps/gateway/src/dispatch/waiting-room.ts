import type { AbortSignalLike } from "../upstream";

/** The timers a waiting room sleeps on: Node's in the gateway (unref'd), the test's own in tests. */
export interface WaitTimers {
  /** Calls `callback` once after `ms` milliseconds; the handle is for `clear`. */
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Node's timers, unref'd: a waiting request never keeps a closing process alive. */
export const NODE_TIMERS: WaitTimers = {
  set(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clear(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * What a look at a waiter's plan found: back (a dispatch now would reach a plan, or probe one),
 * or not, with the instant it is expected back (epoch ms; undefined = unknown).
 */
export type PlanLook = { readonly back: true } | { readonly back: false; returnAtMs?: number };

/** One request as the waiting room sees it. */
export interface Waiter {
  /** Epoch ms the request stops waiting: its arrival plus the wait it may have. */
  readonly deadlineMs: number;
  /** Aborted when the client goes away; the request then leaves the room at once. */
  readonly signal?: AbortSignalLike | undefined;
  /**
   * Waiters with the same key see the same pool (same model id and client key), so one look
   * per pass answers for all of them.
   */
  readonly lookKey: string;
  /** Looks at the live state: is the plan back for this request? Synchronous, no I/O. */
  look(): PlanLook;
  /** Epoch ms at which `onAlarm` is called, once, if the request is still waiting then. */
  readonly alarmAtMs?: number;
  onAlarm?(): void;
}

/**
 * How a wait ended. `released`: the plan is back; the request dispatches again and calls `done()`
 * once its place in line no longer matters (its pool is built, or its probe has answered), which
 * lets the next waiter go. `expired`: the plan cannot be back before the deadline (or the deadline
 * passed). `gone`: the client went away. `full`: the room already held its most waiters.
 * `closed`: the gateway is closing.
 */
export type WaitEnd =
  | { readonly kind: "released"; done(): void }
  | { readonly kind: "expired" | "gone" | "full" | "closed" };

/** One request's place in line, kept across its holds. */
export interface WaitTicket {
  /** True once the request has had a place in a line (a `full` line never gave it one). */
  readonly admitted: boolean;
  /**
   * Waits in the room of `connectionId` until the plan is back for this request, its deadline
   * cannot be met, or its client goes away; `returnAtMs` is when the request expects the plan
   * back (epoch ms), until a look says otherwise. A request held again after a release keeps its
   * arrival place (and is never refused as `full`).
   */
  hold(connectionId: string, returnAtMs?: number): Promise<WaitEnd>;
}

/** The requests waiting for one plan connection. */
interface WaitingRoomState {
  readonly connectionId: string;
  readonly waiting: number;
  /** The earliest instant one of them expects the plan back (epoch ms); undefined = unknown. */
  readonly returnAtMs: number | undefined;
}

/** Options of {@link createWaitingRoom}. */
interface WaitingRoomOptions {
  /** Clock, epoch milliseconds. */
  now: () => number;
  /** Most requests waiting for one connection at once; the next gets `full`. */
  maxWaiting: number;
  /** Default {@link NODE_TIMERS}. */
  timers?: WaitTimers;
  /** Called when a request takes its place in a line for the first time (metrics). */
  onAdmit?(connectionId: string): void;
  /**
   * Longest sleep between two looks while anyone waits, milliseconds (default 500): a reading
   * can arrive without a wake (another replica, a scheduled poll, a cooldown that ends), and a
   * clock can jump (an injected one, a suspended machine), so the room looks again at least
   * this often. A look reads memory only: no upstream request is ever sent by it.
   */
  maxSleepMs?: number;
}

/** The gateway's waiting rooms: one line per plan connection. */
export interface WaitingRoom {
  /** A place in line for `waiter`: the arrival order is the order of these calls. */
  ticket(waiter: Waiter): WaitTicket;
  /**
   * Something changed for the connection (its reset passed, a fresh reading arrived, a probe
   * answered): look at its waiters now.
   */
  wake(connectionId: string): void;
  /** Every room with someone in it. */
  rooms(): WaitingRoomState[];
  /** Ends every wait with `closed` and refuses new ones (the gateway is closing). */
  close(): void;
}

interface Entry {
  readonly ticket: Ticket;
  readonly resolve: (end: WaitEnd) => void;
  readonly onAbort: (() => void) | undefined;
  /** When it expects the plan back: given at entry, then from each look. */
  returnAtMs: number | undefined;
}

interface Room {
  readonly id: string;
  /** In arrival order. */
  readonly entries: Entry[];
  /** A released waiter has not yet said `done()`: the next one waits for it. */
  releasing: boolean;
}

interface Ticket extends WaitTicket {
  readonly seq: number;
  readonly waiter: Waiter;
  admitted: boolean;
  alarmed: boolean;
}

const GONE: WaitEnd = { kind: "gone" };
const EXPIRED: WaitEnd = { kind: "expired" };
const FULL: WaitEnd = { kind: "full" };
const CLOSED: WaitEnd = { kind: "closed" };

/**
 * The waiting rooms of ladder.md §17 (WAIT3): requests wait in line per plan connection, in
 * arrival order, with no upstream traffic. The room looks at its waiters when woken (reset timer,
 * fresh reading, probe answered) and at least every `maxSleepMs` (deadlines, alarms, readings
 * that arrived unannounced). A look that finds the plan back releases the first such waiter and
 * no other until it says `done()`, so a request that becomes the probe (ladder.md §15) is
 * answered before the next one looks, and the rest then go in order. A waiter whose plan cannot
 * be back before its deadline leaves at once. Holds no upstream state: only promises and timers.
 */
export function createWaitingRoom(options: WaitingRoomOptions): WaitingRoom {
  const timers = options.timers ?? NODE_TIMERS;
  const maxSleepMs = options.maxSleepMs ?? 500;
  const rooms = new Map<string, Room>();
  let nextSeq = 0;
  let timer: unknown;
  /** When the armed timer fires (epoch ms on the clock); Infinity with none armed. */
  let armedForMs = Infinity;
  let closed = false;

  function roomOf(connectionId: string): Room {
    let room = rooms.get(connectionId);
    if (!room) {
      room = { id: connectionId, entries: [], releasing: false };
      rooms.set(connectionId, room);
    }
    return room;
  }

  function remove(room: Room, entry: Entry): void {
    const index = room.entries.indexOf(entry);
    if (index !== -1) room.entries.splice(index, 1);
    if (entry.onAbort) entry.ticket.waiter.signal?.removeEventListener("abort", entry.onAbort);
    if (room.entries.length === 0 && !room.releasing) rooms.delete(room.id);
  }

  function end(room: Room, entry: Entry, outcome: WaitEnd): void {
    remove(room, entry);
    entry.resolve(outcome);
  }

  /** One look at a room: deadlines, alarms, then the plan for each waiter in order. */
  function pump(room: Room): void {
    const nowMs = options.now();
    const looks = new Map<string, PlanLook>();
    for (const entry of [...room.entries]) {
      const { waiter } = entry.ticket;
      if (nowMs >= waiter.deadlineMs) {
        end(room, entry, EXPIRED);
        continue;
      }
      if (!entry.ticket.alarmed && waiter.alarmAtMs !== undefined && nowMs >= waiter.alarmAtMs) {
        entry.ticket.alarmed = true;
        waiter.onAlarm?.();
      }
      // While a released waiter has not said done (it may be the probe), nobody else looks:
      // the plan's state is about to change.
      if (room.releasing) continue;
      let look = looks.get(waiter.lookKey);
      if (look === undefined) {
        look = waiter.look();
        looks.set(waiter.lookKey, look);
      }
      if (look.back) {
        room.releasing = true;
        remove(room, entry);
        entry.resolve({ kind: "released", done: once(() => finishRelease(room)) });
        continue;
      }
      const returnAtMs = look.returnAtMs;
      if (returnAtMs === undefined || returnAtMs > waiter.deadlineMs) {
        end(room, entry, EXPIRED); // it cannot be back in time: answered at once
        continue;
      }
      entry.returnAtMs = returnAtMs;
    }
  }

  function finishRelease(room: Room): void {
    room.releasing = false;
    if (room.entries.length === 0) {
      if (rooms.get(room.id) === room) rooms.delete(room.id);
      return;
    }
    pump(room);
    arm();
  }

  function tick(): void {
    timer = undefined;
    armedForMs = Infinity;
    if (closed) return;
    for (const room of [...rooms.values()]) pump(room);
    arm();
  }

  /** Sleeps until the next deadline or alarm, at most `maxSleepMs`; not at all with nobody in. */
  function arm(): void {
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
    armedForMs = Infinity;
    if (closed) return;
    let nextMs = Infinity;
    for (const room of rooms.values()) {
      for (const { ticket } of room.entries) nextMs = Math.min(nextMs, dueMs(ticket));
    }
    if (nextMs !== Infinity) armAt(nextMs);
  }

  /**
   * Brings the timer forward for one new waiter, without a pass over the others (a thousand
   * arrivals would otherwise cost a million steps). A timer that fires with nothing due only
   * looks and sleeps again.
   */
  function armFor(ticket: Ticket): void {
    if (closed) return;
    const nowMs = options.now();
    const atMs = Math.min(dueMs(ticket), nowMs + maxSleepMs);
    if (timer !== undefined && armedForMs <= atMs) return;
    if (timer !== undefined) timers.clear(timer);
    armAt(atMs);
  }

  function armAt(nextMs: number): void {
    const nowMs = options.now();
    const sleepMs = Math.max(1, Math.min(maxSleepMs, nextMs - nowMs));
    armedForMs = nowMs + sleepMs;
    timer = timers.set(tick, sleepMs);
  }

  function hold(ticket: Ticket, connectionId: string, returnAtMs?: number): Promise<WaitEnd> {
    if (closed) return Promise.resolve(CLOSED);
    const { waiter } = ticket;
    if (waiter.signal?.aborted) return Promise.resolve(GONE);
    const room = roomOf(connectionId);
    if (!ticket.admitted && room.entries.length >= options.maxWaiting) {
      if (room.entries.length === 0 && !room.releasing) rooms.delete(connectionId);
      return Promise.resolve(FULL);
    }
    if (!ticket.admitted) {
      ticket.admitted = true;
      options.onAdmit?.(connectionId);
    }
    return new Promise<WaitEnd>((resolve) => {
      let entry: Entry;
      const onAbort = waiter.signal
        ? () => {
            // Leaving makes nothing due sooner: the timer stands (it finds nobody, or stops).
            if (room.entries.includes(entry)) end(room, entry, GONE);
          }
        : undefined;
      entry = { ticket, resolve, onAbort, returnAtMs };
      // Arrival order: a request back in line after a release goes before later arrivals.
      let index = room.entries.length;
      while (index > 0 && room.entries[index - 1]!.ticket.seq > ticket.seq) index--;
      room.entries.splice(index, 0, entry);
      if (onAbort) waiter.signal?.addEventListener("abort", onAbort);
      armFor(ticket);
    });
  }

  return {
    ticket(waiter) {
      const ticket: Ticket = {
        seq: nextSeq++,
        waiter,
        admitted: false,
        alarmed: false,
        hold: (connectionId, returnAtMs) => hold(ticket, connectionId, returnAtMs),
      };
      return ticket;
    },
    wake(connectionId) {
      const room = rooms.get(connectionId);
      if (!room || closed) return;
      pump(room);
      arm();
    },
    rooms() {
      const states: WaitingRoomState[] = [];
      for (const room of rooms.values()) {
        if (room.entries.length === 0) continue;
        let returnAtMs: number | undefined;
        for (const entry of room.entries) {
          const at = entry.returnAtMs;
          if (at !== undefined && (returnAtMs === undefined || at < returnAtMs)) returnAtMs = at;
        }
        states.push({ connectionId: room.id, waiting: room.entries.length, returnAtMs });
      }
      return states;
    },
    close() {
      closed = true;
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
      for (const room of [...rooms.values()]) {
        for (const entry of [...room.entries]) end(room, entry, CLOSED);
      }
      rooms.clear();
    },
  };
}

/** The next instant a waiter needs a look without a wake: its alarm, else its deadline. */
function dueMs(ticket: Ticket): number {
  const { waiter } = ticket;
  if (!ticket.alarmed && waiter.alarmAtMs !== undefined) {
    return Math.min(waiter.deadlineMs, waiter.alarmAtMs);
  }
  return waiter.deadlineMs;
}

function once(action: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    action();
  };
}
