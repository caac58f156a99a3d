import { catalogMeta } from "@planfirst/billing-catalog";
import { PAID_RUNGS, RUNG_ORDER } from "@planfirst/subscription-ladder";
import { nextBudgetWindowMs } from "../dispatch/paid-refusals";
import type { StatusCacheReads } from "./cache-reads";
import type { HistoryBucket } from "./history-store";
import {
  type EvidenceSource,
  overageEvidenceOf,
  probeInFlightOf,
  type StatusOverageEvidence,
} from "./overage-evidence";
import { type RemainingSample, type WindowPace, windowPace } from "./pace";
import { type StatusCooldown, statusCooldownOf } from "./status-cooldown";
import { remainingSeries } from "./status-levels";
import { exclusionsByConnection, returnTimes, type StatusExclusion } from "./status-routing";
import type { StatusSource as AppContext } from "./status-source";
import type { ServedRecord, StatusTracker } from "./status-tracker";

/** One quota window of a connection as `/v1/status` reports it. */
export interface StatusWindow {
  windowId: string;
  model: string | null;
  remainingPercent: number | null;
  resetAt: string | null;
  status: string;
  observedAt: string;
  /** The burn rate over the last hour and when the window runs out at that pace. */
  pace: WindowPace;
}

/** The last request of a routing id: which rung, connection and model served it, and when. */
interface StatusServed {
  rung: string;
  connection: string;
  model: string;
  at: string;
}

/** The line of requests waiting for a plan connection, as `/v1/status` shows it. */
interface StatusWaiting {
  requests: number;
  /** When the first of them expects the plan back (ISO); null when not known. */
  returnAt: string | null;
}

/** A client key's budget over every paid rung, as `/v1/status` reports it. Never the key itself. */
interface StatusKeyBudget {
  /** The key's id. */
  key: string;
  window: string;
  windowKey: string;
  spentUsd: number;
  reservedUsd: number;
  budgetUsd: number;
  /** When the key's window ends and its budget starts over (ISO-8601). */
  resetsAt: string;
}

/** What `GET /v1/status` returns (the CLI's `status` and the status page read it). No credential appears here. */
export interface GatewayStatus {
  catalog: { version: string; dataDate: string };
  evaluatedAt: string;
  /** The five rungs, top to bottom. */
  rungOrder: string[];
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
    /** The latest live overage evidence, null when the connection has shown none. */
    overageEvidence: StatusOverageEvidence | null;
    /** True while a probe of the plan (one request to get a fresh reading) is in flight. */
    probeInFlight: boolean;
    /**
     * Requests held waiting for this plan to come back (ladder.md §17) and the instant the first
     * of them expects it; null when none waits.
     */
    waiting: StatusWaiting | null;
    /** End of the latest cooldown in force, whatever its scope; null when none. */
    cooldownUntil: string | null;
    /** Every cooldown in force: transient backoffs and quota waits, account-wide or per model. */
    cooldowns: StatusCooldown[];
    /** Why the connection is out of each routing id's pool (empty when it is in everywhere). */
    out: StatusExclusion[];
    /** Live sessions whose last request this connection served (ladder.md §16). */
    liveSessions: number;
  }[];
  budgets: {
    rung: string;
    window: string;
    windowKey: string;
    /**
     * Every key's settled spend on the rung; for a client key's view (`ofKey` set), that key's
     * own settled spend only.
     */
    spentUsd: number;
    /** Every key's reservations in flight; 0 in a client key's view, which shows settled spend. */
    reservedUsd: number;
    budgetUsd: number | null;
    /** Null: the spend of every key; a key id: that client key's own spend alone. */
    ofKey: string | null;
  }[];
  /**
   * The budgets of client keys that have one (`server.apiKeys[].budgetUsd`), over every paid
   * rung: all of them for an admin, the caller's own for a client key.
   */
  keyBudgets: StatusKeyBudget[];
  /** Requests served per rung in the last hour (rung `none` = answered with an error). */
  requestsLastHour: Record<string, number>;
  /**
   * Per paid rung, the share of input read from the prompt cache in the last hour (a client
   * key's view: of its own requests); null when the spend records could not be read (the store
   * is down).
   */
  cacheReadsLastHour: Record<string, StatusCacheReads> | null;
  /** The last served request per routing id (the id the client asked for). */
  lastServed: Record<string, StatusServed>;
  /**
   * When each routing id could serve again: the `earliestReturnAt` of `/v1/ladder` (one
   * `earliestUsefulReset`, S2b), so the page, the 429's `Retry-After` and the CLI agree.
   */
  returnAt: Record<string, string | null>;
}

/**
 * Builds the status document from live state. `recent` (the last hour of history) feeds the
 * pace of each window; `tracker` the last-served rungs; `cacheReads` the paid rungs' cache reads
 * (see `cacheReadsLastHour`). Without them pace reads "not being used", nothing is marked
 * served and the cache reads are null.
 */
export function gatewayStatus(
  app: AppContext,
  tracker?: Pick<StatusTracker, "lastServed">,
  recent: readonly HistoryBucket[] = [],
  cacheReads: Record<string, StatusCacheReads> | null = null,
): GatewayStatus {
  const { deps, table } = app;
  const nowMs = deps.now();
  const out = exclusionsByConnection(app);
  const waiting = new Map<string, StatusWaiting>();
  for (const room of app.dispatcher.waiting.rooms()) {
    waiting.set(room.connectionId, {
      requests: room.waiting,
      returnAt: room.returnAtMs === undefined ? null : new Date(room.returnAtMs).toISOString(),
    });
  }
  const sessions = deps.sessions?.liveSessions() ?? new Map<string, number>();
  const connections = [...table.connections.values()].map((connection) => {
    const id = connection.config.id;
    const state = deps.quotaCache.get(connection.config.provider, id);
    const cooldowns = deps.cooldowns.activeCooldowns(id).map(statusCooldownOf);
    const until = cooldowns.reduce<string | null>(
      (latest, cooldown) =>
        latest === null || Date.parse(cooldown.until) > Date.parse(latest)
          ? cooldown.until
          : latest,
      null,
    );
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
              pace: windowPace(
                window.windowId,
                samplesOf(recent, remainingSeries(id, window.windowId)),
                window,
                nowMs,
              ),
            })),
          }
        : null,
      overageEvidence: overageEvidenceOf(deps.quotaCache as EvidenceSource, id),
      probeInFlight: probeInFlightOf(deps.quotaCache as EvidenceSource, id),
      waiting: waiting.get(id) ?? null,
      cooldownUntil: until,
      cooldowns,
      out: out.get(id) ?? [],
      liveSessions: sessions.get(id) ?? 0,
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
    ofKey: null,
  }));
  const keyBudgets: StatusKeyBudget[] = [];
  for (const key of deps.secrets.clientKeys) {
    if (!key.budget) continue;
    const keyWindow = deps.ledger.currentWindowKey(key.budget.window);
    keyBudgets.push({
      key: key.id,
      window: key.budget.window,
      windowKey: keyWindow,
      spentUsd: deps.ledger.spentUsd(key.budget.scope, keyWindow),
      reservedUsd: deps.ledger.reservedUsd(key.budget.scope, keyWindow),
      budgetUsd: key.budget.budgetUsd,
      resetsAt: new Date(
        nextBudgetWindowMs(
          {
            budgetWindow: key.budget.window,
            budgetTimeZone: deps.config.subscriptionLadder.budgetTimeZone,
          },
          nowMs,
        ),
      ).toISOString(),
    });
  }
  const lastServed: Record<string, StatusServed> = {};
  for (const [modelId, record] of Object.entries(tracker?.lastServed() ?? {})) {
    lastServed[modelId] = servedOf(record);
  }
  return {
    catalog: { version: catalogMeta.version, dataDate: catalogMeta.dataDate },
    evaluatedAt: new Date(nowMs).toISOString(),
    rungOrder: [...RUNG_ORDER],
    connections,
    budgets,
    keyBudgets,
    requestsLastHour: deps.metrics.requestsPerRung(nowMs),
    cacheReadsLastHour: cacheReads,
    lastServed,
    returnAt: returnTimes(app),
  };
}

function servedOf(record: ServedRecord): StatusServed {
  return {
    rung: record.rung,
    connection: record.connection,
    model: record.model,
    at: new Date(record.atMs).toISOString(),
  };
}

function samplesOf(buckets: readonly HistoryBucket[], series: string): RemainingSample[] {
  const samples: RemainingSample[] = [];
  for (const bucket of buckets) {
    const reading = bucket.levels[series];
    if (reading) samples.push({ atMs: reading.atMs, remainingPercent: reading.value });
  }
  return samples;
}
