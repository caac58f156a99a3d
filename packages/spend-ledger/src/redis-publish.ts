import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import type { WindowRef } from "./redis-keys";
import { type RunBatch, refreshOperation } from "./redis-script-call";

/**
 * When a store publishes a window's totals (see `publishIntervalMs`).
 *
 * Publishes are folded per window: the first change after a quiet interval is published by its
 * own script, later ones within the interval are not, and one refresh script publishes the
 * totals as they are at the end of it. This is safe because a publish carries the window's
 * whole totals with their sequence number, never a delta: the deferred one supersedes every
 * change it covers, and a replica that missed the skipped ones has lost nothing. Admission never
 * reads a mirror; a replica that has not yet seen a change gets the exact totals in the reply of
 * its own next script.
 */
export interface PublishFolding {
  /**
   * The channel a script call for `ref` at `nowMs` publishes on: the store's channel, or '' when
   * the window published less than the interval ago (its publish is then deferred).
   */
  channelFor(ref: WindowRef, nowMs: number): string;
  /** Publishes every deferred window's totals now (when Redis is ready). */
  publishDeferred(): Promise<void>;
  /** Stops the timer of the deferred publish. */
  cancelTimer(): void;
}

/** Folds the publishes of a store's script calls (see {@link PublishFolding}). */
export function createPublishFolding(options: {
  client: Redis;
  channel: string;
  publishIntervalMs: number;
  runBatch: RunBatch;
  isClosed: () => boolean;
}): PublishFolding {
  const { client, channel, publishIntervalMs, runBatch, isClosed } = options;
  /** Windows with a change not yet published, with the newest `nowMs` used on each. */
  const unpublished = new Map<string, { ref: WindowRef; nowMs: number }>();
  let publishTimer: ReturnType<typeof setTimeout> | undefined;

  const channelFor = (ref: WindowRef, nowMs: number): string => {
    if (publishIntervalMs <= 0) return channel;
    const at = performance.now();
    if (ref.publishedAt === undefined || at - ref.publishedAt >= publishIntervalMs) {
      ref.publishedAt = at;
      return channel;
    }
    const pending = unpublished.get(ref.member);
    if (!pending) unpublished.set(ref.member, { ref, nowMs });
    else if (nowMs > pending.nowMs) pending.nowMs = nowMs;
    schedulePublish();
    return "";
  };

  const schedulePublish = () => {
    if (publishTimer !== undefined || isClosed()) return;
    publishTimer = setTimeout(() => {
      publishTimer = undefined;
      void publishDeferred();
    }, publishIntervalMs);
    publishTimer.unref();
  };

  // The deferred publish expires reservations with the newest clock an operation on that window
  // already used, never a clock of its own (the ledger's clock is injected).
  const publishDeferred = async () => {
    if (unpublished.size === 0 || client.status !== "ready") return;
    const due = [...unpublished.values()];
    unpublished.clear();
    const at = performance.now();
    await Promise.all(
      due.map(({ ref, nowMs }) => {
        ref.publishedAt = at;
        return runBatch(ref, channel, true, [
          refreshOperation(nowMs, () => {
            // Redis did not answer: try again after the interval (or once it is back).
            if (!unpublished.has(ref.member)) unpublished.set(ref.member, { ref, nowMs });
            schedulePublish();
          }),
        ]);
      }),
    );
  };

  return {
    channelFor,
    publishDeferred,
    cancelTimer() {
      clearTimeout(publishTimer);
      publishTimer = undefined;
    },
  };
}
