import type { GatewayStatus } from "./gateway-status";
import { CHART_SPAN_MS } from "./status-charts";
import { renderStatusMain } from "./status-page";
import { statusSnapshot } from "./status-snapshot";
import type { StatusSource } from "./status-source";
import type { StatusTracker } from "./status-tracker";

/** One push of the feed: the server's clock and the rendered `<main>` of the page. */
export interface StatusPush {
  /** ISO-8601 instant of the snapshot (the gateway's clock, which the countdowns follow). */
  now: string;
  html: string;
  status: GatewayStatus;
}

/** Options of {@link createStatusFeed}. */
interface StatusFeedOptions {
  /** Real-time interval between looks at live state while someone listens. Default 1 000 ms. */
  checkIntervalMs?: number;
  /** Real-time interval of the keep-alive comment while nothing changes. Default 15 000 ms. */
  heartbeatMs?: number;
  /**
   * Least real time from one look to the next, however often requests are served. Default
   * 250 ms: a busy gateway serves thousands of requests a second, and a look (snapshot,
   * history, rendering) per request cost a gateway with one page open four fifths of its
   * throughput.
   */
  minIntervalMs?: number;
}

/**
 * A listener of the feed: `push` on each change, `heartbeat` while nothing changes, `end` when
 * the feed closes (its event stream should end, so the page reconnects).
 */
interface StatusListener {
  push(push: StatusPush): void;
  heartbeat(): void;
  end?(): void;
}

/**
 * The live feed behind `/v1/status/events`: while at least one page listens, it looks at live
 * state once a second, and soon after a served request (at most four times a second, see
 * `minIntervalMs`), and pushes a new rendering to every listener only when the snapshot
 * changed; a heartbeat keeps idle connections open. One feed serves all listeners, so ten open
 * pages cost what one does. Nothing runs when nobody listens.
 */
export interface StatusFeed {
  /** Adds a listener (it gets the current rendering first); returns the unsubscribe function. */
  subscribe(listener: StatusListener): () => void;
  /** The current snapshot and rendering. */
  current(): Promise<StatusPush>;
  /** Stops timers, tells every listener to end and drops them. */
  close(): void;
}

/** Creates the feed of one app. */
export function createStatusFeed(
  app: StatusSource,
  tracker: StatusTracker,
  options: StatusFeedOptions = {},
): StatusFeed {
  const listeners = new Set<StatusListener>();
  let timer: NodeJS.Timeout | undefined;
  let lastKey = "";
  let lastBeatMs = Date.now();
  let checking: Promise<void> | undefined;
  /** When the last look started (real time), and the look waiting for its turn, if any. */
  let lastLookMs = Number.NEGATIVE_INFINITY;
  let next: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;
  const minIntervalMs = options.minIntervalMs ?? 250;

  async function current(): Promise<StatusPush> {
    const status = await statusSnapshot(app, tracker);
    const nowMs = Date.parse(status.evaluatedAt);
    const history = await tracker.history(nowMs - CHART_SPAN_MS - 900_000, nowMs + 1);
    return { now: status.evaluatedAt, html: renderStatusMain(status, history), status };
  }

  async function checkOnce(): Promise<void> {
    const push = await current();
    const key = changeKey(push.status);
    if (key !== lastKey) {
      lastKey = key;
      lastBeatMs = Date.now();
      for (const listener of listeners) listener.push(push);
    } else if (Date.now() - lastBeatMs >= (options.heartbeatMs ?? 15_000)) {
      lastBeatMs = Date.now();
      for (const listener of listeners) listener.heartbeat();
    }
  }

  // One look at a time, starting at least minIntervalMs after the one before: however many
  // requests for a look come meanwhile, they are one look, as soon as its turn comes.
  function check(): void {
    if (next || listeners.size === 0) return;
    const waitMs = checking ? minIntervalMs : lastLookMs + minIntervalMs - Date.now();
    next = setTimeout(look, Math.max(0, waitMs));
    next.unref();
  }

  function look(): void {
    next = undefined;
    if (checking) {
      check();
      return;
    }
    lastLookMs = Date.now();
    checking = checkOnce()
      .catch(() => undefined)
      .finally(() => {
        checking = undefined;
      });
  }

  function stop(): void {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (next) clearTimeout(next);
    next = undefined;
    unwatch?.();
    unwatch = undefined;
  }

  return {
    subscribe(listener) {
      listeners.add(listener);
      void current()
        .then((push) => {
          if (listeners.has(listener)) listener.push(push);
        })
        .catch(() => undefined);
      if (!timer) {
        lastKey = "";
        timer = setInterval(check, options.checkIntervalMs ?? 1_000);
        timer.unref();
        unwatch = tracker.onChange(check);
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    current,
    close() {
      stop();
      const ending = [...listeners];
      listeners.clear();
      for (const listener of ending) listener.end?.();
    },
  };
}

// What counts as a change: everything in the snapshot except the instants that move with the
// clock on their own (the countdowns tick in the page itself).
function changeKey(status: GatewayStatus): string {
  return JSON.stringify(status, (key, value) =>
    key === "evaluatedAt" || key === "exhaustsAt" || key === "runsOutBeforeResetMs"
      ? undefined
      : value,
  );
}
