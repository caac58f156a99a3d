import { catalogMeta } from "@planfirst/billing-catalog";
import { PAID_RUNGS } from "@planfirst/subscription-ladder";
import type { AppContext } from "../app-context";

/** One quota window of a connection as `/v1/status` reports it. */
export interface StatusWindow {
  windowId: string;
  model: string | null;
  remainingPercent: number | null;
  resetAt: string | null;
  status: string;
  observedAt: string;
}

/** What `GET /v1/status` returns (the CLI's `status` reads it). No credential appears here. */
export interface GatewayStatus {
  catalog: { version: string; dataDate: string };
  evaluatedAt: string;
  connections: {
    id: string;
    provider: string;
    protocol: string;
    billing: string;
    overage: string;
    /** Rungs of the connection's models (one per distinct rung). */
    rungs: string[];
    enabled: boolean;
    disabledReason: string | null;
    quota: {
      status: string;
      remainingPercent: number | null;
      resetAt: string | null;
      checkedAt: string;
      windows: StatusWindow[];
    } | null;
    cooldownUntil: string | null;
  }[];
  budgets: {
    rung: string;
    window: string;
    windowKey: string;
    spentUsd: number;
    reservedUsd: number;
    budgetUsd: number | null;
  }[];
  /** Requests served per rung in the last hour (rung `none` = answered with an error). */
  requestsLastHour: Record<string, number>;
}

/** Builds the status document from live state. */
export function gatewayStatus(app: AppContext): GatewayStatus {
  const { deps, table } = app;
  const nowMs = deps.now();
  const connections = [...table.connections.values()].map((connection) => {
    const id = connection.config.id;
    const state = deps.quotaCache.get(connection.config.provider, id);
    const until = deps.cooldowns.cooldownUntil(id);
    const rungs = [
      ...new Set(connection.config.models.map((model) => table.rungOf(id, model) ?? "unknown")),
    ];
    return {
      id,
      provider: connection.config.provider,
      protocol: connection.config.protocol,
      billing: connection.billing.billing,
      overage: connection.billing.overage,
      rungs,
      enabled: connection.disabledReason === null,
      disabledReason: connection.disabledReason,
      quota: state
        ? {
            status: state.status,
            remainingPercent: state.remainingPercent,
            resetAt: state.resetAt,
            checkedAt: state.checkedAt,
            windows: state.windows.map((window) => ({
              windowId: window.windowId,
              model: window.scope?.model ?? null,
              remainingPercent: window.remainingPercent,
              resetAt: window.resetAt,
              status: window.status,
              observedAt: window.observedAt,
            })),
          }
        : null,
      cooldownUntil: instant(until, nowMs),
    };
  });
  const windowKey = deps.ledger.currentWindowKey();
  const budgets = PAID_RUNGS.map((rung) => ({
    rung,
    window: deps.config.subscriptionLadder.budgetWindow,
    windowKey,
    spentUsd: deps.ledger.spentUsd(rung),
    reservedUsd: deps.ledger.reservedUsd(rung),
    budgetUsd: deps.ledger.budgetUsd(rung) ?? null,
  }));
  return {
    catalog: { version: catalogMeta.version, dataDate: catalogMeta.dataDate },
    evaluatedAt: new Date(nowMs).toISOString(),
    connections,
    budgets,
    requestsLastHour: deps.metrics.requestsPerRung(nowMs),
  };
}

function instant(value: unknown, nowMs: number): string | null {
  const ms =
    typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms) || ms <= nowMs) return null;
  return new Date(ms).toISOString();
}
