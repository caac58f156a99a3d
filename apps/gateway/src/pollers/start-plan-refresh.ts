import type { RefreshScheduler } from "@planfirst/quota-cache";
import type { GatewayDeps } from "../deps";
import type { RoutingTable } from "../routing/routing-table";
import { createPlanRefresh } from "./plan-refresh";
import { createResetTimers, type ResetTimers } from "./reset-timers";

/**
 * Wires S2a into a running gateway: `deps.planRefresh` (the on-request single-flight refresh the
 * dispatcher asks for when a strict request finds a plan reading stale for its reset) and, with
 * `resetTimers`, a timer at each known reset of a plan window (plus skew). At a reset, a
 * connection with a usage endpoint is refreshed through the scheduler (skipped in a cooldown or
 * within its minimum interval); one without an endpoint is left probeable: its reading is past
 * its reset, so the next strict request probes it (ladder.md §15). `onPlanChange` hears of each
 * passed reset and each fresh reading a refresh took (the lines waiting for that plan, WAIT4).
 * `close()` stops the timer.
 */
export function startPlanRefresh(
  deps: GatewayDeps,
  table: Pick<RoutingTable, "connections">,
  scheduler: Pick<RefreshScheduler, "refresh" | "inFlight">,
  polled: readonly string[],
  options: { resetTimers: boolean; onPlanChange?: (connectionId: string) => void },
): { close(): void } {
  const planRefresh = createPlanRefresh(deps.logger, options.onPlanChange);
  planRefresh.attach(scheduler, polled);
  deps.planRefresh = planRefresh;
  let timers: ResetTimers | undefined;
  if (options.resetTimers) {
    const plans = [...table.connections.values()]
      .filter((c) => c.disabledReason === null && c.billing.billing === "subscription")
      .map((c) => c.config.id);
    timers = createResetTimers({
      cache: deps.quotaCache,
      connectionIds: plans,
      now: deps.now,
      onReset(connectionId, reset) {
        // Never during a cooldown: the scheduler checks account-wide ones, this the model's.
        if (deps.cooldowns.isCoolingDown(connectionId, reset.model)) return;
        deps.logger.debug(
          { connection: connectionId, window: reset.windowId, resetAt: reset.resetAt },
          "plan window reset: taking a fresh reading",
        );
        planRefresh.request(connectionId);
        // A plan with no usage endpoint is probeable from now: its line may send the probe.
        options.onPlanChange?.(connectionId);
      },
    });
  }
  return {
    close() {
      timers?.close();
    },
  };
}
