import type { ImplausibleTime } from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { GatewayMetrics } from "./metrics";

/** Warned (connection, window, field, source) keys, per logger: one warning each per process. */
const warned = new WeakMap<Logger, Set<string>>();

/**
 * Reports times an upstream sent beyond what their window allows: each one counts in
 * `planfirst_implausible_times_total{connection,source}`, and the first of each (connection,
 * window, field, source) is logged once as a warning. Only the connection id, the window, the
 * field, the source and the instant are logged: never a header value that could be a secret, never
 * a credential.
 */
export function reportImplausibleTimes(
  deps: { metrics: GatewayMetrics; logger: Logger },
  connectionId: string,
  times: readonly ImplausibleTime[] | undefined,
): void {
  if (!times || times.length === 0) return;
  let seen = warned.get(deps.logger);
  if (!seen) {
    seen = new Set();
    warned.set(deps.logger, seen);
  }
  for (const time of times) {
    deps.metrics.countImplausibleTime(connectionId, time.source);
    const key = `${connectionId}\u0000${time.windowId ?? ""}\u0000${time.field}\u0000${time.source}`;
    if (seen.has(key)) continue;
    seen.add(key);
    deps.logger.warn(
      {
        connection: connectionId,
        window: time.windowId,
        field: time.field,
        source: time.source,
        instant: time.value,
        maxAheadMs: time.maxAheadMs,
      },
      "upstream sent a time beyond its window; it is ignored and reads as unknown",
    );
  }
}
