import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { AppContext } from "./app-context";

/**
 * Registers the gauges read from live state at scrape time: quota remaining per connection and
 * window, requests waiting per plan connection, spend and budget per paid rung in the current
 * window.
 */
export function registerStateGauges(app: AppContext): void {
  const { deps, table } = app;
  deps.metrics.registerGauge(
    "planfirst_quota_remaining_percent",
    "Remaining quota per connection and window (0..100), from the freshest reading.",
    () => {
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
  deps.metrics.registerGauge(
    "planfirst_waiting_requests",
    "Requests held waiting for a plan connection to come back, by connection.",
    () =>
      app.dispatcher.waiting
        .rooms()
        .map((room) => ({ labels: { connection: room.connectionId }, value: room.waiting })),
  );
  deps.metrics.registerGauge(
    "planfirst_rung_spend_usd",
    "Settled spend per paid rung in the current budget window, USD.",
    () => PAID_RUNGS.map((rung) => ({ labels: { rung }, value: deps.ledger.spentUsd(rung) })),
  );
  deps.metrics.registerGauge(
    "planfirst_rung_reserved_usd",
    "Reserved (in-flight) spend per paid rung in the current budget window, USD.",
    () => PAID_RUNGS.map((rung) => ({ labels: { rung }, value: deps.ledger.reservedUsd(rung) })),
  );
  deps.metrics.registerGauge(
    "planfirst_rung_budget_usd",
    "Budget per paid rung per window, USD (absent = unbudgeted).",
    () =>
      PAID_RUNGS.flatMap((rung) => {
        const budget = deps.ledger.budgetUsd(rung);
        return budget === undefined ? [] : [{ labels: { rung }, value: budget }];
      }),
  );
}
