import type { RefreshScheduler } from "@planfirst/quota-cache";
import type { Logger } from "pino";

/**
 * The on-request and at-reset refreshes of plan readings (ladder.md S2a), through the refresh
 * scheduler once the gateway attaches it: single-flight per connection, never during a cooldown
 * and never more often than the scheduler's minimum interval (it skips those itself).
 */
export interface PlanRefresh {
  /**
   * Asks for a fresh reading of a connection with a usage endpoint (no await, never throws);
   * one without an endpoint is refreshed by a probe instead (§15), so nothing is done for it.
   */
  request(connectionId: string): void;
  /** True while a refresh of the connection is queued or running (S2b: `Retry-After: 1`). */
  isPending(connectionId: string): boolean;
  /** True when the connection has a usage endpoint the scheduler polls. */
  hasUsageEndpoint(connectionId: string): boolean;
  /** Connects the scheduler and the ids it polls; until then `request` does nothing. */
  attach(
    scheduler: Pick<RefreshScheduler, "refresh" | "inFlight">,
    polled: readonly string[],
  ): void;
}

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
