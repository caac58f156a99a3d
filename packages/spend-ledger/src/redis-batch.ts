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
export const MAX_BATCH_OPERATIONS = 256;

/** Operations waiting for their window's next script call, by window. */
export interface BatchQueue<W> {
  /**
   * Queues `operation` for window `window`; an urgent one (a reserve, which a request waits for)
   * is sent at the end of this turn, any other (a settle or release) with the next urgent one or
   * after SETTLE_DELAY_MS (see hand-over.ts).
   */
  add(window: W, operation: BatchOperation, urgent: boolean): void;
  /** Sends everything queued now; resolves when every call sent so far has been answered. */
  flush(): Promise<void>;
}

/**
 * A queue that hands each window's operations to `send` in batches of at most
 * {@link MAX_BATCH_OPERATIONS}, in the order they were added. `send` answers every operation of
 * its batch (resolve or reject) and never rejects itself.
 */
export function createBatchQueue<W>(
  send: (window: W, operations: BatchOperation[]) => Promise<void>,
): BatchQueue<W> {
  const queued = new Map<W, BatchOperation[]>();
  const inFlight = new Set<Promise<void>>();
  const sendAll = () => {
    handOver.cancel();
    for (const [window, operations] of queued) {
      for (let at = 0; at < operations.length; at += MAX_BATCH_OPERATIONS) {
        const call = send(window, operations.slice(at, at + MAX_BATCH_OPERATIONS));
        inFlight.add(call);
        void call.finally(() => inFlight.delete(call));
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
      handOver.request(urgent);
    },
    flush() {
      sendAll();
      return Promise.all(inFlight).then(() => undefined);
    },
  };
}
