import type { RefreshScheduler } from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { PlanRefresh } from "../deps";

/**
 * Creates the gateway's {@link PlanRefresh}. Failures are logged at warn, never thrown;
 * `onRefreshed` hears of every refresh that took a fresh reading.
 */
export function createPlanRefresh(
  logger: Pick<Logger, "warn">,
  onRefreshed?: (connectionId: string) => void,
): PlanRefresh {
  let scheduler: Pick<RefreshScheduler, "refresh" | "inFlight"> | null = null;
  let polled: ReadonlySet<string> = new Set();
  return {
    request(connectionId) {
      if (!scheduler || !polled.has(connectionId)) return;
      void scheduler.refresh(connectionId).then((outcome) => {
        if (outcome.status === "failed") {
          logger.warn(
            { connection: connectionId, error: String(outcome.error) },
            "usage refresh failed",
          );
        } else if (outcome.status === "refreshed") {
          onRefreshed?.(connectionId);
        }
      });
    },
    isPending(connectionId) {
      return scheduler?.inFlight().includes(connectionId) ?? false;
    },
    hasUsageEndpoint(connectionId) {
      return polled.has(connectionId);
    },
    attach(next, ids) {
      scheduler = next;
      polled = new Set(ids);
    },
  };
}
