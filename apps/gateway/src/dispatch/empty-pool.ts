import type { LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import { type AttemptRecord, GatewayError } from "../errors";
import type { ClientRequest } from "./dispatcher";
import { explainModel } from "../routing/explain-model";
import type { ModelResolution, RoutingTable } from "../routing/routing-table";

/** Why one connection could not serve the request, for error bodies. Never holds a credential. */
export interface ConnectionReason {
  connection: string;
  model: string;
  reason: string;
}

/**
 * The error for a request with no target left. `auto/subscription` (and its composites) answers
 * 429 `plan_quota_exhausted` with `Retry-After` = seconds to the earliest known plan reset and
 * the reason per connection (SUB6); other ids answer 503 `no_available_target`, with a
 * `Retry-After` when a cooldown end is known.
 */
export function emptyPoolError(
  deps: GatewayDeps,
  table: RoutingTable,
  ladderOptions: LadderOptions,
  resolution: Extract<ModelResolution, { ok: true }>,
  request: ClientRequest,
  attempts: readonly AttemptRecord[] = [],
): GatewayError {
  const nowMs = deps.now();
  const reasons = connectionReasons(deps, table, ladderOptions, request);
  let earliest = Infinity;
  for (const group of resolution.groups) {
    for (const id of group.connectionIds) {
      const connection = table.connections.get(id);
      if (!connection) continue;
      const isPlan = connection.billing.billing === "subscription";
      if (resolution.grouping === "subscription" && !isPlan) continue;
      const state = deps.quotaCache.get(group.provider, id, group.model);
      for (const iso of [state?.resetAt, ...(state?.windows ?? []).map((w) => w.resetAt)]) {
        const ms = iso ? Date.parse(iso) : Number.NaN;
        if (ms > nowMs && ms < earliest && state?.status === "exhausted") earliest = ms;
      }
      if (state?.resetAt && state.status !== "exhausted") {
        const ms = Date.parse(state.resetAt);
        if (
          ms > nowMs &&
          ms < earliest &&
          (state.remainingPercent ?? 100) <= ladderThreshold(ladderOptions)
        ) {
          earliest = ms;
        }
      }
      const until = toMs(deps.cooldowns.cooldownUntil(id, group.model));
      if (until !== null && until > nowMs && until < earliest) earliest = until;
    }
  }
  const retryAfterSec = Number.isFinite(earliest)
    ? Math.max(1, Math.ceil((earliest - nowMs) / 1000))
    : undefined;
  const details: Record<string, unknown> = { reasons };
  if (attempts.length > 0) details.attempts = attempts;
  if (retryAfterSec !== undefined) {
    details.retry_after_seconds = retryAfterSec;
    details.resets_at = new Date(earliest).toISOString();
  }
  deps.metrics.countRequest("none", "none", "exhausted", nowMs);
  if (resolution.grouping === "subscription") {
    return new GatewayError({
      message: `no plan connection with verified headroom can serve ${request.modelId}${retryAfterSec !== undefined ? `; the earliest plan reset is in ${retryAfterSec} s` : ""}`,
      code: "plan_quota_exhausted",
      details,
      retryAfterSec,
    });
  }
  return new GatewayError({
    message: `no connection can serve ${request.modelId} right now`,
    code: "no_available_target",
    details,
    retryAfterSec,
  });
}

function ladderThreshold(options: LadderOptions): number {
  return options.exitCutoffPercent ?? 2;
}

function toMs(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

function connectionReasons(
  deps: GatewayDeps,
  table: RoutingTable,
  ladderOptions: LadderOptions,
  request: ClientRequest,
): ConnectionReason[] {
  const explanation = explainModel(
    {
      table,
      ladderOptions,
      live: {
        quotaState: (provider, id, model) => deps.quotaCache.get(provider, id, model),
        isCoolingDown: (id, model) => deps.cooldowns.isCoolingDown(id, model),
        cooldownUntil: (id, model) => deps.cooldowns.cooldownUntil(id, model),
      },
      now: deps.now,
    },
    request.modelId,
    request.client,
  );
  const reasons: ConnectionReason[] = explanation.excluded.map((e) => ({
    connection: e.connectionId,
    model: e.model,
    reason: e.reason,
  }));
  for (const candidate of explanation.ladder.candidates) {
    for (const connection of candidate.connections) {
      if (connection.verdict === "in") continue;
      reasons.push({
        connection: connection.connectionId ?? candidate.provider,
        model: candidate.model,
        reason: connection.reason,
      });
    }
  }
  return reasons;
}
