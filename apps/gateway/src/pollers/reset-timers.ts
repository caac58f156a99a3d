import type { KnownReset } from "@planfirst/quota-cache";

/** Options of {@link createResetTimers}. */
interface ResetTimersOptions {
  /** Where the known resets come from (the quota cache). */
  cache: { knownResets(connectionIds?: readonly string[]): KnownReset[] };
  /** The plan connections whose window resets matter (rung 0). */
  connectionIds: readonly string[];
  /** Clock, epoch milliseconds (injected). */
  now: () => number;
  /** Called once per connection and passed reset, `skewMs` after the reset instant. */
  onReset(connectionId: string, reset: KnownReset): void;
  /**
   * Wait after a reset before acting, ms: the provider's counters roll over on its own clock,
   * so a refresh sent exactly at the instant could still read the old window. Default 250.
   */
  skewMs?: number;
  /**
   * Longest sleep between two looks at the clock, ms (default 500). A timer set for an
   * instant hours away would miss a clock that jumps (a suspended laptop, NTP, an injected
   * clock); looking twice a second keeps a reset acted on within skew + 500 ms + the refresh.
   */
  maxSleepMs?: number;
}

/** The running reset timers. */
export interface ResetTimers {
  /** Looks at the clock now: acts on every reset passed, then re-arms. */
  tick(): void;
  /** Stops the timer (gateway close). */
  close(): void;
}

/**
 * S2a: a timer for each known reset instant of a plan window. One unref'd timer sleeps until
 * the soonest reset plus skew (at most `maxSleepMs`), reads `knownResets()` again on every wake
 * (so it re-arms by itself when readings change), and calls `onReset` once for each reset it
 * finds passed. What `onReset` does (a usage refresh through the scheduler, or nothing for a
 * plan refreshed by a probe) is the caller's.
 */
export function createResetTimers(options: ResetTimersOptions): ResetTimers {
  const skewMs = options.skewMs ?? 250;
  const maxSleepMs = options.maxSleepMs ?? 500;
  const ids = [...options.connectionIds];
  const fired = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function tick(): void {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    const nowMs = options.now();
    let nextMs = Infinity;
    const live = new Set<string>();
    const due = new Map<string, KnownReset>();
    for (const reset of ids.length > 0 ? options.cache.knownResets(ids) : []) {
      const atMs = Date.parse(reset.resetAt);
      if (Number.isNaN(atMs)) continue;
      const key = `${reset.connectionId}\u0000${reset.windowId}\u0000${reset.model ?? ""}\u0000${reset.resetAt}`;
      live.add(key);
      if (fired.has(key)) continue;
      if (atMs + skewMs <= nowMs) {
        fired.add(key);
        if (!due.has(reset.connectionId)) due.set(reset.connectionId, reset);
      } else {
        nextMs = Math.min(nextMs, atMs + skewMs);
      }
    }
    for (const key of fired) if (!live.has(key)) fired.delete(key);
    for (const [connectionId, reset] of due) options.onReset(connectionId, reset);
    if (closed || ids.length === 0) return;
    const sleepMs = Math.max(10, Math.min(maxSleepMs, nextMs - nowMs));
    timer = setTimeout(tick, sleepMs);
    timer.unref();
  }

  tick();
  return {
    tick,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
