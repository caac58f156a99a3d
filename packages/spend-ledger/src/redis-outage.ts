import { SpendLedgerError } from "./errors";
import type { SpendStoreLogger } from "./redis-store-options";
import type { SettleJournal } from "./settle-journal";

/** Whether Redis answers, as a store last saw it; one warning each way. */
interface OutageLog {
  /** False from the first failure until Redis answers again. */
  reachable: boolean;
  /** Redis did not answer (`cause`): warns once when it was reachable. */
  markDown(cause: unknown): void;
  /** Redis answered: warns once when it was unreachable. */
  markUp(): void;
}

/** The connection-level facts of an ioredis error, never a URL or a password. */
function describeCause(cause: unknown): Record<string, unknown> {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { error: cause.name, ...(typeof code === "string" ? { code } : {}) };
  }
  return { error: String(cause) };
}

/**
 * One warning to `logger` when Redis goes away, one when it is back, however many errors in
 * between; none once the store is closed.
 */
export function createOutageLog(
  logger: SpendStoreLogger,
  journal: Pick<SettleJournal, "size">,
  isClosed: () => boolean,
): OutageLog {
  const outage: OutageLog = {
    reachable: true,
    markDown(cause) {
      if (isClosed() || !outage.reachable) return;
      outage.reachable = false;
      logger.warn(
        { store: "redis", ...describeCause(cause) },
        "spend store unreachable: paid reservations are refused (store_unavailable) and settles are journaled until it is back",
      );
    },
    markUp() {
      if (isClosed() || outage.reachable) return;
      outage.reachable = true;
      logger.warn(
        { store: "redis", journaled: journal.size() },
        "spend store reachable again: replaying journaled settles",
      );
    },
  };
  return outage;
}

/** The `store_unavailable` error of an `operation` Redis could not run. */
export function unavailable(operation: string, cause?: unknown): SpendLedgerError {
  return new SpendLedgerError({
    code: "store_unavailable",
    message: `Redis spend store: ${operation} failed, Redis is unreachable`,
    cause,
  });
}
