import { type Cooldown, type QuotaState, scopeAppliesToModel } from "@planfirst/quota-cache";
import type { ClientIdentity } from "./client-identity";

/**
 * Live lookups the pool build reads (all synchronous). Only `quotaState` and `isCoolingDown`
 * change the targets; the optional lookups word explanations and errors.
 */
export interface PoolLiveState {
  /** The quota cache's reading of a connection for a model; undefined when it has none. */
  quotaState(provider: string, connectionId: string, model: string): QuotaState | undefined;
  /** True while the connection is out for the model after an upstream failure. */
  isCoolingDown(connectionId: string, model: string): boolean;
  /** When a cooldown ends (epoch ms or ISO); read only to explain one. */
  cooldownUntil?(connectionId: string, model: string): unknown;
  /**
   * The problem a cooldown in force names in words ("Copilot refused the request: missing
   * Editor-Version header"), see {@link cooldownReasonOf}; read only to explain one.
   */
  cooldownReason?(connectionId: string, model: string): string | undefined;
  /**
   * S2b: true while a refresh or probe of a plan connection is due or in flight (its reading is
   * past its reset and can be retaken, or a probe holds its lease), so a strict error says
   * `Retry-After: 1` instead of some later window's reset. Absent = never.
   */
  refreshDue?(provider: string, connectionId: string, model: string): boolean;
  /**
   * Why a connection bills by its own account's word (fresh evidence `on`, E1), for the words
   * of an exclusion; undefined when it has none. Absent = never said.
   */
  billingEvidence?(connectionId: string): string | undefined;
}

/** Why the gateway keeps a connection out before the ladder runs. */
type ExclusionKind = "client_scope" | "cooling_down";

/**
 * The gateway's own filter, before the ladder: a connection outside the client key's scope, or
 * cooling down for the model, is out. The pool build and explain both ask this one function, so
 * `/v1/ladder` never disagrees with what a request would try.
 */
export function exclusionOf(
  live: PoolLiveState,
  client: ClientIdentity,
  connectionId: string,
  model: string,
): ExclusionKind | null {
  if (client.connections !== null && !client.connections.has(connectionId)) return "client_scope";
  if (live.isCoolingDown(connectionId, model)) return "cooling_down";
  return null;
}

/** The words of an exclusion in explain output and error bodies. */
export function describeExclusion(
  kind: ExclusionKind,
  live: PoolLiveState,
  connectionId: string,
  model: string,
): string {
  if (kind === "client_scope") return "not usable by this client key";
  const until = live.cooldownUntil?.(connectionId, model);
  const reason = live.cooldownReason?.(connectionId, model);
  const bills = live.billingEvidence?.(connectionId);
  return `cooling down${until ? ` until ${formatInstant(until)}` : ""}${reason ? `: ${reason}` : ""}${bills ? `; ${bills}` : ""}`;
}

/**
 * The reason of the first cooldown in force that covers `model` (account-wide, or scoped to a
 * model whose scope applies) and names one; undefined when none does.
 */
export function cooldownReasonOf(
  cooldowns: readonly Cooldown[],
  model: string,
): string | undefined {
  for (const cooldown of cooldowns) {
    if (cooldown.reason === null) continue;
    if (cooldown.model === null || scopeAppliesToModel(cooldown.model, model)) {
      return cooldown.reason;
    }
  }
  return undefined;
}

function formatInstant(value: unknown): string {
  if (typeof value === "number") return new Date(value).toISOString();
  return String(value);
}
