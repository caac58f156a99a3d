import type { RefreshScheduler } from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { PlanRefresh } from "../deps";

/** Creates the gateway's {@link PlanRefresh}. Failures are logged at warn, never thrown. */
export function createPlanRefresh(logger: Pick<Logger, "warn">): PlanRefresh {
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
