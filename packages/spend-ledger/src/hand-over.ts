import { SETTLE_DELAY_MS } from "./spend-store";

/** When a store's queued writes leave for the disk or Redis; see {@link createHandOver}. */
export interface HandOver {
  /**
   * Asks for a hand-over. `urgent` (a reserve, whose caller waits for it before calling the
   * upstream, or a flush) gets one at the end of this turn of the event loop, after the turn's
   * I/O callbacks have queued theirs (`setImmediate`); otherwise (a settle or release, whose
   * caller need not wait) it rides with the next urgent one or goes after
   * {@link SETTLE_DELAY_MS}, whichever comes first, so under load settles share the reserves'
   * batches instead of costing batches of their own.
   */
  request(urgent: boolean): void;
  /** Forgets the hand-overs asked for (the caller hands over now by itself). */
  cancel(): void;
}

/** The schedule both batching stores share: `handOver` runs at most once per request asked. */
export function createHandOver(handOver: () => void): HandOver {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  let late: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    if (immediate !== undefined) clearImmediate(immediate);
    if (late !== undefined) clearTimeout(late);
    immediate = undefined;
    late = undefined;
  };
  const run = () => {
    cancel();
    handOver();
  };
  return {
    request(urgent) {
      if (urgent) immediate ??= setImmediate(run);
      else if (immediate === undefined) late ??= setTimeout(run, SETTLE_DELAY_MS);
    },
    cancel,
  };
}
