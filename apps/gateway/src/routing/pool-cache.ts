import type { QuotaState } from "@planfirst/quota-cache";
import {
  type LadderOptions,
  type RungBudgetRule,
  readRungBudget,
} from "@planfirst/subscription-ladder";
import { buildTargets, type DispatchTarget, type PoolLiveState } from "./build-pool";
import type { ClientIdentity } from "./client-identity";
import type { ModelResolution, RoutingTable } from "./routing-table";

/** A resolved model id: the part of a resolution a pool is built from. */
export type ResolvedModel = Extract<ModelResolution, { ok: true }>;

/** Builds pools, reusing the last one for a model id and client while its inputs are unchanged. */
export interface PoolCache {
  /** The targets of `resolution` for `client`, in dispatch order (the same as `buildTargets`). */
  targetsFor(resolution: ResolvedModel, client: ClientIdentity): readonly DispatchTarget[];
}

/** Options of {@link createPoolCache}. */
interface PoolCacheOptions {
  table: RoutingTable;
  live: PoolLiveState;
  ladderOptions: LadderOptions;
  /** Clock, epoch milliseconds. */
  now: () => number;
  /** Age after which a quota reading no longer counts, milliseconds (the ladder's setting). */
  maxStateAgeMs: number;
}

/** One live lookup a pool build made and what it answered. */
type Lookup =
  | { kind: "cooling"; connectionId: string; model: string; value: boolean }
  | {
      kind: "pool-quota" | "ladder-quota";
      provider: string;
      connectionId: string | null;
      model: string;
      value: QuotaState | undefined;
    }
  | { kind: "spend"; rung: PaidRung; rule: RungBudgetRule; exhausted: boolean }
  | { kind: "evidence"; connectionId: string; value: string };

type PaidRung = Parameters<NonNullable<LadderOptions["resolveRungSpendUsd"]>>[0];

interface Entry {
  readonly connections: ReadonlySet<string> | null;
  readonly targets: readonly DispatchTarget[];
  readonly lookups: readonly Lookup[];
  /** The first instant a quota reading the build saw could read differently by age or reset. */
  readonly validUntilMs: number;
}

/**
 * A pool is a pure function of static routing facts, the client's scope, the clock and a few
 * live lookups (cooldowns, quota readings, whether a rung's spend gates it). Each build records
 * the lookups it made; the next request for the same model id and client asks them again and
 * reuses the pool when every answer is the same and no reading it saw has since aged out or
 * passed its reset (the only ways the clock enters the ladder's decision). Anything different rebuilds, so the order
 * is exactly what a fresh build would give. Entries are bounded by the configured model ids,
 * categories and client keys (unknown ids never resolve, so they never get here).
 */
export function createPoolCache(options: PoolCacheOptions): PoolCache {
  const { table, live, ladderOptions, now, maxStateAgeMs } = options;
  const entries = new Map<ResolvedModel, Map<string, Entry>>();

  function stillValid(entry: Entry): boolean {
    if (now() >= entry.validUntilMs) return false;
    for (const lookup of entry.lookups) {
      switch (lookup.kind) {
        case "cooling":
          if (live.isCoolingDown(lookup.connectionId, lookup.model) !== lookup.value) return false;
          break;
        case "pool-quota":
          if (
            !sameState(
              live.quotaState(lookup.provider, lookup.connectionId as string, lookup.model),
              lookup.value,
            )
          ) {
            return false;
          }
          break;
        case "ladder-quota":
          if (
            !sameState(
              ladderOptions.resolveQuotaState(lookup.provider, lookup.connectionId, lookup.model),
              lookup.value,
            )
          ) {
            return false;
          }
          break;
        case "spend": {
          // Asked on every paid request: read straight from the ladder's options, no closure.
          const reading = readRungBudget(lookup.rung, ladderOptions);
          if (reading.rule !== lookup.rule || reading.exhausted !== lookup.exhausted) return false;
          break;
        }
        case "evidence":
          if (
            evidenceKey(ladderOptions.resolveOverageEvidence?.(lookup.connectionId)) !==
            lookup.value
          ) {
            return false;
          }
          break;
      }
    }
    return true;
  }

  /**
   * What a rung's spend decides in a pool build: the budget rule and whether it gates the rung
   * (the ladder's own `readRungBudget`). Every paid request changes the spend itself, so
   * comparing the amount would rebuild the pool on every paid request for nothing.
   */
  function spendLookup(rung: PaidRung, spentUsd: number | null): Lookup {
    const reading = readRungBudget(rung, {
      ...(ladderOptions.rungBudgetUsd ? { rungBudgetUsd: ladderOptions.rungBudgetUsd } : {}),
      resolveRungSpendUsd: () => spentUsd,
    });
    return { kind: "spend", rung, rule: reading.rule, exhausted: reading.exhausted };
  }

  function fresh(resolution: ResolvedModel, client: ClientIdentity): Entry {
    const lookups: Lookup[] = [];
    const seen = new Set<string>();
    const once = (key: string) => {
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    };
    const recordingLive: PoolLiveState = {
      isCoolingDown(connectionId, model) {
        const value = live.isCoolingDown(connectionId, model);
        if (once(`c\u0000${connectionId}\u0000${model}`)) {
          lookups.push({ kind: "cooling", connectionId, model, value });
        }
        return value;
      },
      quotaState(provider, connectionId, model) {
        const value = live.quotaState(provider, connectionId, model);
        if (once(`p\u0000${provider}\u0000${connectionId}\u0000${model}`)) {
          lookups.push({ kind: "pool-quota", provider, connectionId, model, value });
        }
        return value;
      },
    };
    const resolveRungSpendUsd = ladderOptions.resolveRungSpendUsd;
    const resolveOverageEvidence = ladderOptions.resolveOverageEvidence;
    // Evidence ages out of E3's freshness like a reading: the pool is rebuilt when it does.
    let evidenceUntilMs = Infinity;
    const recordingLadder: LadderOptions = {
      ...ladderOptions,
      resolveQuotaState(provider, connectionId, model) {
        const value = ladderOptions.resolveQuotaState(provider, connectionId, model);
        if (once(`l\u0000${provider}\u0000${connectionId}\u0000${model}`)) {
          lookups.push({ kind: "ladder-quota", provider, connectionId, model, value });
        }
        return value;
      },
      ...(resolveRungSpendUsd
        ? {
            resolveRungSpendUsd(rung) {
              const value = resolveRungSpendUsd(rung);
              if (once(`s\u0000${rung}`)) {
                lookups.push(spendLookup(rung, value));
              }
              return value;
            },
          }
        : {}),
      ...(resolveOverageEvidence
        ? {
            resolveOverageEvidence(connectionId) {
              const value = resolveOverageEvidence(connectionId);
              if (once(`e\u0000${connectionId}`)) {
                lookups.push({ kind: "evidence", connectionId, value: evidenceKey(value) });
                for (const observation of evidenceList(value)) {
                  const observedMs = Date.parse(observation.observedAt);
                  if (!Number.isNaN(observedMs)) {
                    evidenceUntilMs = Math.min(evidenceUntilMs, observedMs + maxStateAgeMs + 1);
                  }
                }
              }
              return value;
            },
          }
        : {}),
    };
    const targets = buildTargets(
      table,
      resolution.groups,
      resolution.grouping,
      client,
      recordingLive,
      recordingLadder,
    );
    let validUntilMs = evidenceUntilMs;
    for (const lookup of lookups) {
      if ((lookup.kind === "pool-quota" || lookup.kind === "ladder-quota") && lookup.value) {
        validUntilMs = Math.min(validUntilMs, turnsAtMs(lookup.value, maxStateAgeMs));
      }
    }
    return { connections: client.connections, targets, lookups, validUntilMs };
  }

  return {
    targetsFor(resolution, client) {
      let byClient = entries.get(resolution);
      if (!byClient) {
        byClient = new Map();
        entries.set(resolution, byClient);
      }
      const entry = byClient.get(client.id);
      if (entry && entry.connections === client.connections && stillValid(entry)) {
        return entry.targets;
      }
      const built = fresh(resolution, client);
      byClient.set(client.id, built);
      return built.targets;
    },
  };
}

type EvidenceAnswer = ReturnType<NonNullable<LadderOptions["resolveOverageEvidence"]>>;

function evidenceList(value: EvidenceAnswer): readonly { evidence: string; observedAt: string }[] {
  if (!value) return [];
  return Array.isArray(value) ? value : [value as { evidence: string; observedAt: string }];
}

/** The part of an evidence answer E3 reads, as one comparable string. */
function evidenceKey(value: EvidenceAnswer): string {
  return evidenceList(value)
    .map((observation) => `${observation.evidence}@${observation.observedAt}`)
    .join(",");
}

/** The fields of a reading the pool order and the ladder read. */
function sameState(a: QuotaState | undefined, b: QuotaState | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.status === b.status &&
    a.remainingPercent === b.remainingPercent &&
    a.resetAt === b.resetAt &&
    a.checkedAt === b.checkedAt &&
    a.hasBeenExhausted === b.hasBeenExhausted
  );
}

/** When a reading starts to count as stale (age) or past its reset; Infinity when never. */
function turnsAtMs(state: QuotaState, maxStateAgeMs: number): number {
  let at = Infinity;
  const checkedMs = Date.parse(state.checkedAt);
  if (!Number.isNaN(checkedMs)) at = Math.min(at, checkedMs + maxStateAgeMs);
  if (state.resetAt) {
    const resetMs = Date.parse(state.resetAt);
    if (!Number.isNaN(resetMs)) at = Math.min(at, resetMs);
  }
  return at;
}
