import type { SpendStore } from "@planfirst/spend-ledger";

const DAY_MS = 86_400_000;

/** How often the spend history is pruned, in ms: hourly, and once at start. */
const SPEND_PRUNE_INTERVAL_MS = 3_600_000;

/** The spend store's pruning of its history: running until stopped. */
interface SpendHistoryPruning {
  /** Stops the timer and any prune after its step under way, so the store can close after it. */
  stop(): Promise<void>;
}

/**
 * Keeps `storage.spendMaxAgeDays` of spend history in `store` (see `SpendStore.prune`): once at
 * start and then hourly, every replica alike (a prune is idempotent). Only history goes: the
 * totals of a window that has not ended and every live reservation stay, so no budget admits
 * more after a prune. A prune that fails is logged and tried at the next hour; nothing else
 * waits for it.
 */
export function startSpendHistoryPruning(options: {
  store: SpendStore;
  maxAgeDays: number;
  now: () => number;
  logger: {
    info(fields: object, message: string): void;
    warn(fields: object, message: string): void;
  };
}): SpendHistoryPruning {
  const { store, maxAgeDays, now, logger } = options;
  let running: Promise<void> = Promise.resolve();
  const stopping = new AbortController();
  const pruneOnce = async () => {
    if (!store.prune || stopping.signal.aborted) return;
    try {
      const pruned = await store.prune(now() - maxAgeDays * DAY_MS, { signal: stopping.signal });
      if (Object.values(pruned).some((count) => count > 0)) {
        logger.info({ pruned, maxAgeDays }, "spend history older than its age limit removed");
      }
    } catch (error) {
      logger.warn({ err: error }, "pruning the spend history failed; it is tried again in an hour");
    }
  };
  const pruneNow = () => {
    running = running.then(pruneOnce);
    return running;
  };
  void pruneNow();
  const timer = setInterval(() => void pruneNow(), SPEND_PRUNE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      // A long first prune (a large history) stops after its step under way.
      stopping.abort();
      await running;
    },
  };
}
