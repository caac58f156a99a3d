import { cacheReadsLastHour } from "./cache-reads";
import { type GatewayStatus, gatewayStatus } from "./gateway-status";
import { statusLevels } from "./status-levels";
import type { StatusSource as AppContext } from "./status-source";
import type { StatusTracker } from "./status-tracker";

/**
 * The full snapshot: takes a level reading into the history first (so the history and the pace
 * follow every look at the page), then builds {@link gatewayStatus} over the last hour.
 */
export async function statusSnapshot(
  app: AppContext,
  tracker: StatusTracker,
): Promise<GatewayStatus> {
  tracker.recordLevels(statusLevels(app));
  const nowMs = app.deps.now();
  const [recent, cacheReads] = await Promise.all([
    tracker.history(nowMs - 3_600_000 - 300_000, nowMs + 1),
    cacheReadsLastHour(app, nowMs),
  ]);
  return gatewayStatus(app, tracker, recent, cacheReads);
}
