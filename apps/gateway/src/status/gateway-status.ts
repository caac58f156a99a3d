import { catalogMeta } from "@planfirst/billing-catalog";
import type { Cooldown } from "@planfirst/quota-cache";
import { summarize } from "@planfirst/spend-ledger";
import { PAID_RUNGS, RUNG_ORDER } from "@planfirst/subscription-ladder";
import { nextBudgetWindowMs } from "../dispatch/paid-refusals";
import { explainModel, explainSourceOf } from "../routing/explain-model";
import type { HistoryBucket } from "./history-store";
import { type RemainingSample, type WindowPace, windowPace } from "./pace";
import type { StatusSource as AppContext } from "./status-source";
import type { ServedRecord, StatusTracker } from "./status-tracker";

/** The routing ids whose verdicts and last-served rung the status shows. */
export const STATUS_ROUTING_IDS = ["auto/subscription", "auto/thrifty"] as const;

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

/** Live evidence of whether a connection bills past its plan, with where it was seen. */
export interface StatusOverageEvidence {
  evidence: "on" | "off";
  /** The signal that carried it (`claude-header`, `codex-usage`, …). */
  source: string;
  observedAt: string;
  detail: string | null;
}

/** Why a connection is out of a routing id's pool: the words of `/v1/ladder`. */
export interface StatusExclusion {
  routingId: string;
  model: string;
  reason: string;
}

/** The last request of a routing id: which rung, connection and model served it, and when. */
export interface StatusServed {
  rung: string;
  connection: string;
  model: string;
  at: string;
}

/** The line of requests waiting for a plan connection, as `/v1/status` shows it. */
export interface StatusWaiting {
  requests: number;
  /** When the first of them expects the plan back (ISO); null when not known. */
  returnAt: string | null;
}

/** One cooldown in force, as `/v1/status` lists it. */
export interface StatusCooldown {
  /** The failure that set it: `rate_limited`, `window_exhausted`, `overloaded`, `timeout`, … */
  kind: string;
  /** Model it is scoped to; null = the whole connection. */
  model: string | null;
  since: string;
  until: string;
  /** The upstream's own reset instant, when it gave one. */
  resetAt: string | null;
  /**
   * The problem in words when the upstream named it ("Copilot refused the request: missing
   * Editor-Version header"); null otherwise. Never carries a credential.
   */
  reason: string | null;
}

function statusCooldownOf(cooldown: Cooldown): StatusCooldown {
  return {
    kind: cooldown.kind,
    model: cooldown.model,
    since: cooldown.since,
    until: cooldown.until,
    resetAt: cooldown.resetAt,
    reason: cooldown.reason,
  };
}

/** A client key's budget over every paid rung, as `/v1/status` reports it. Never the key itself. */
export interface StatusKeyBudget {
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

/**
 * How much of a paid rung's input was read from the provider's prompt cache, over the spend
 * records of the last hour (token counts as the upstreams reported them).
 */
export interface StatusCacheReads {
  /** Every input token booked, cached reads and cache writes included. */
  inputTokens: number;
  /** Input tokens read from the cache (billed at the cache-read price). */
  cachedInputTokens: number;
  /** Input tokens written to the cache. */
  cacheWriteTokens: number;
  /** `cachedInputTokens` as a percentage of `inputTokens`; null when no input was booked. */
  readPercent: number | null;
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
 * (see {@link cacheReadsLastHour}). Without them pace reads "not being used", nothing is marked
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

/** `earliestReturnAt` of each status routing id, as `/v1/ladder` computes it. */
function returnTimes(app: AppContext): Record<string, string | null> {
  const source = explainSourceOf(app);
  const times: Record<string, string | null> = {};
  for (const routingId of STATUS_ROUTING_IDS) {
    try {
      times[routingId] = explainModel(source, routingId).earliestReturnAt;
    } catch {
      times[routingId] = null;
    }
  }
  return times;
}

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
export function spentSeries(rung: string): string {
  return `spent:${rung}`;
}

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

/**
 * Per paid rung, how much of the input booked in the spend records of the hour before `nowMs`
 * was read from the prompt cache (every paid rung listed, zero when it served nothing); of one
 * client key's records alone when `clientKeyId` is given. Null when the spend store cannot
 * answer: the page says so rather than failing.
 */
export async function cacheReadsLastHour(
  app: Pick<AppContext, "deps">,
  nowMs: number,
  clientKeyId?: string,
): Promise<Record<string, StatusCacheReads> | null> {
  let byRung: ReturnType<typeof summarize>["byRung"];
  try {
    const query =
      clientKeyId === undefined
        ? { sinceMs: nowMs - 3_600_000 }
        : { sinceMs: nowMs - 3_600_000, clientKeyId };
    byRung = summarize(await app.deps.ledger.records(query)).byRung;
  } catch {
    return null;
  }
  const reads: Record<string, StatusCacheReads> = {};
  for (const rung of PAID_RUNGS) {
    const totals = Object.hasOwn(byRung, rung) ? byRung[rung] : undefined;
    const inputTokens = totals?.inputTokens ?? 0;
    const cachedInputTokens = totals?.cachedInputTokens ?? 0;
    reads[rung] = {
      inputTokens,
      cachedInputTokens,
      cacheWriteTokens: totals?.cacheWriteTokens ?? 0,
      readPercent: inputTokens > 0 ? (cachedInputTokens / inputTokens) * 100 : null,
    };
  }
  return reads;
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

// The same explanation `/v1/ladder` gives (explainModel), so the page and the ladder route use
// the same words for why a connection is out.
function exclusionsByConnection(app: AppContext): Map<string, StatusExclusion[]> {
  const byConnection = new Map<string, StatusExclusion[]>();
  const add = (connectionId: string, entry: StatusExclusion) => {
    const list = byConnection.get(connectionId) ?? [];
    if (!list.some((e) => e.routingId === entry.routingId && e.reason === entry.reason)) {
      list.push(entry);
    }
    byConnection.set(connectionId, list);
  };
  const source = explainSourceOf(app);
  for (const routingId of STATUS_ROUTING_IDS) {
    let explanation: ReturnType<typeof explainModel>;
    try {
      explanation = explainModel(source, routingId);
    } catch {
      continue;
    }
    for (const excluded of explanation.excluded) {
      add(excluded.connectionId, {
        routingId,
        model: excluded.model,
        reason: excluded.reason,
      });
    }
    for (const candidate of explanation.ladder.candidates) {
      for (const connection of candidate.connections) {
        if (connection.verdict !== "out" || connection.connectionId === null) continue;
        add(connection.connectionId, {
          routingId,
          model: connection.model,
          reason: connection.reason,
        });
      }
    }
  }
  return byConnection;
}

/** The optional parts of a quota cache the status reads when the cache offers them. */
interface EvidenceSource {
  overageEvidence?(connectionId: string): unknown;
  isProbeInFlight?(connectionId: string): boolean;
}

// The newest observation the cache holds (it keeps the newest `on` and `off`, newest first).
// Read with a total guard: the gateway's cache interface does not promise the method.
function overageEvidenceOf(
  cache: EvidenceSource,
  connectionId: string,
): StatusOverageEvidence | null {
  const held =
    typeof cache.overageEvidence === "function" ? cache.overageEvidence(connectionId) : [];
  const raw: unknown = Array.isArray(held) ? held[0] : undefined;
  if (raw === null || typeof raw !== "object") return null;
  const value = raw as Record<string, unknown>;
  if (value.evidence !== "on" && value.evidence !== "off") return null;
  if (typeof value.observedAt !== "string") return null;
  return {
    evidence: value.evidence,
    source: typeof value.source === "string" ? value.source : "unknown",
    observedAt: value.observedAt,
    detail: typeof value.detail === "string" ? value.detail : null,
  };
}

function probeInFlightOf(cache: EvidenceSource, connectionId: string): boolean {
  return (
    typeof cache.isProbeInFlight === "function" && cache.isProbeInFlight(connectionId) === true
  );
}
