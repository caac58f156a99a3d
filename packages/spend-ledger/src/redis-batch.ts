import { createHandOver } from "./hand-over";
import type { WindowTotals } from "./spend-store";

/** An operation's flag in the batch script's answer, with its window's totals after the batch. */
export interface BatchAnswer extends WindowTotals {
  /** Admitted (reserve), booked (settle) or released (release); false for a refresh. */
  readonly flag: boolean;
}

/**
 * One operation of the Redis store's batch script (see redis-scripts.ts): its kind, the clock it
 * runs at, its four arguments, and what to call with the script's answer.
 */
export interface BatchOperation {
  readonly kind: "r" | "s" | "l" | "x";
  readonly nowMs: number;
  readonly args: readonly [string, string | number, string | number, string | number];
  resolve(answer: BatchAnswer): void;
  reject(error: unknown): void;
}

/** Most operations one script call carries; a longer queue goes in several calls. */
const MAX_BATCH_OPERATIONS = 256;

/**
 * Script calls a queue keeps unanswered before an urgent operation waits for one of them to
 * answer (see {@link createBatchQueue}). Measured with the gateway benchmark on its 2-core
 * machine (paid Redis rung, 32 connections, limits side by side in three runs, CPU µs per
 * request non-stream / stream): no limit 249–268 / 245–303; two calls 218–250 / 242–277, the
 * loop 97–99 % busy; one call 233–235 / 270–272, the loop only 94–96 % busy (requests waiting
 * on the round trip). Two calls cost less than no limit non-stream in every run; stream, where
 * a request spends longer upstream, less in two runs and more in one.
 */
export const MAX_CALLS_IN_FLIGHT = 2;

/** Operations waiting for their window's next script call, by window. */
interface BatchQueue<W> {
  /**
   * Queues `operation` for window `window`; an urgent one (a reserve, which a request waits for)
   * is sent at the end of this turn, or, while {@link MAX_CALLS_IN_FLIGHT} calls are
   * unanswered, at the end of the turn in which one of them is answered; any other (a settle or
   * release) with the next urgent one or after SETTLE_DELAY_MS (see hand-over.ts).
   */
  add(window: W, operation: BatchOperation, urgent: boolean): void;
  /** Sends everything queued now; resolves when every call sent so far has been answered. */
  flush(): Promise<void>;
}

/**
 * A queue that hands each window's operations to `send` in batches of at most
 * {@link MAX_BATCH_OPERATIONS}, in the order they were added. `send` answers every operation of
 * its batch (resolve or reject) and never rejects itself.
 *
 * Under load, urgent operations that arrive while `maxCallsInFlight` calls are out wait for one
 * of them to answer and then leave together: the batches grow with the load instead of the
 * calls, and each call costs a socket write that wakes Redis, a reply that wakes this process,
 * and Redis's own fixed cost per script call. A reserve waits at most one round trip longer;
 * with fewer calls out it leaves at the end of its turn, as before. A call that Redis never
 * answers still ends (the command deadline rejects it), so nothing waits forever.
 */
export function createBatchQueue<W>(
  send: (window: W, operations: BatchOperation[]) => Promise<void>,
  maxCallsInFlight = MAX_CALLS_IN_FLIGHT,
): BatchQueue<W> {
  const queued = new Map<W, BatchOperation[]>();
  const inFlight = new Set<Promise<void>>();
  /** An urgent operation is queued behind the calls in flight. */
  let waiting = false;
  const answered = (call: Promise<void>) => {
    inFlight.delete(call);
    if (waiting && inFlight.size < maxCallsInFlight) {
      waiting = false;
      handOver.request(true);
    }
  };
  const sendAll = () => {
    handOver.cancel();
    waiting = false;
    for (const [window, operations] of queued) {
      for (let at = 0; at < operations.length; at += MAX_BATCH_OPERATIONS) {
        const call = send(window, operations.slice(at, at + MAX_BATCH_OPERATIONS));
        inFlight.add(call);
        void call.finally(() => answered(call));
      }
    }
    queued.clear();
  };
  const handOver = createHandOver(sendAll);

  return {
    add(window, operation, urgent) {
      const operations = queued.get(window);
      if (operations) operations.push(operation);
      else queued.set(window, [operation]);
      if (urgent && inFlight.size >= maxCallsInFlight) waiting = true;
      else handOver.request(urgent);
    },
    flush() {
      sendAll();
      return Promise.all(inFlight).then(() => undefined);
    },
  };
}
