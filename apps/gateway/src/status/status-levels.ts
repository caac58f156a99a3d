import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { StatusSource as AppContext } from "./status-source";

/**
 * The level readings the history keeps, read from live state now: each connection window's
 * remaining percent and each paid rung's spend in the budget window.
 */
export function statusLevels(app: AppContext): Record<string, number> {
  const levels: Record<string, number> = {};
  for (const connection of app.table.connections.values()) {
    const state = app.deps.quotaCache.get(connection.config.provider, connection.config.id);
    for (const window of state?.windows ?? []) {
      if (window.remainingPercent !== null) {
        levels[remainingSeries(connection.config.id, window.windowId)] = window.remainingPercent;
      }
    }
  }
  for (const rung of PAID_RUNGS) levels[spentSeries(rung)] = app.deps.ledger.spentUsd(rung);
  return levels;
}

/** The history series of a connection window's remaining percent. */
export function remainingSeries(connectionId: string, windowId: string): string {
  return `remaining:${connectionId}:${windowId}`;
}

/** The history series of a paid rung's spend in its budget window. */
function spentSeries(rung: string): string {
  return `spent:${rung}`;
}
