import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { GatewayMetrics } from "../observability/metrics";
import type { AppContext } from "./app-context";

/**
 * Registers the gauges read from live state at scrape time: quota remaining per connection and
 * window, spend and budget per paid rung in the current window, the upstream connections held,
 * and the slots in use and the requests waiting on each connection with `maxConcurrent`.
 * `current` is asked at every scrape, so after a config reload the gauges follow the
 * connections and budgets now served.
 */
export function registerStateGauges(metrics: GatewayMetrics, current: () => AppContext): void {
  metrics.registerGauge(
    "planfirst_connection_in_flight",
    "Requests holding a slot of a connection with maxConcurrent (a stream until it ends).",
    () =>
      [...current().dispatcher.slots.all()].map((limit) => ({
        labels: { connection: limit.settings.id },
        value: limit.inUse,
      })),
  );
  metrics.registerGauge(
    "planfirst_upstream_connections",
    "Upstream connections held, busy or idle, across origins (no cap: one per call in flight).",
    () => [{ labels: {}, value: current().deps.upstream.connectionCount() }],
  );
  metrics.registerGauge(
    "planfirst_connection_queued",
    "Requests waiting in line for a slot of a connection at its maxConcurrent.",
    () =>
      [...current().dispatcher.slots.all()].map((limit) => ({
        labels: { connection: limit.settings.id },
        value: limit.queued,
      })),
  );
  metrics.registerGauge(
    "planfirst_quota_remaining_percent",
    "Remaining quota per connection and window (0..100), from the freshest reading.",
    () => {
      const { deps, table } = current();
      const samples = [];
      for (const connection of table.connections.values()) {
        const state = deps.quotaCache.get(connection.config.provider, connection.config.id);
        for (const window of state?.windows ?? []) {
          if (window.remainingPercent === null) continue;
          samples.push({
            labels: {
              connection: connection.config.id,
              window: window.windowId,
              model: window.scope?.model ?? "",
            },
            value: window.remainingPercent,
          });
        }
      }
      return samples;
    },
  );
  metrics.registerGauge(
    "planfirst_rung_spend_usd",
    "Settled spend per paid rung in the current budget window, USD.",
    () => {
      const { ledger } = current().deps;
      return PAID_RUNGS.map((rung) => ({ labels: { rung }, value: ledger.spentUsd(rung) }));
    },
  );
  metrics.registerGauge(
    "planfirst_rung_reserved_usd",
    "Reserved (in-flight) spend per paid rung in the current budget window, USD.",
    () => {
      const { ledger } = current().deps;
      return PAID_RUNGS.map((rung) => ({ labels: { rung }, value: ledger.reservedUsd(rung) }));
    },
  );
  metrics.registerGauge(
    "planfirst_rung_budget_usd",
    "Budget per paid rung per window, USD (absent = unbudgeted).",
    () =>
      PAID_RUNGS.flatMap((rung) => {
        const budget = current().deps.ledger.budgetUsd(rung);
        return budget === undefined ? [] : [{ labels: { rung }, value: budget }];
      }),
  );
}
