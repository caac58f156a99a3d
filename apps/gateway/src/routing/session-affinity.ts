import {
  isPaidRung,
  isQuotaUsable,
  type LadderOptions,
  readRungBudget,
} from "@planfirst/subscription-ladder";
import type { DispatchTarget } from "./build-pool";
import type { PoolLiveState } from "./exclusions";
import type { RoutingTable } from "./routing-table";

/** The target a session's previous request was served by. */
export interface PinnedTarget {
  readonly connectionId: string;
  readonly model: string;
}

/** How a request of a session was placed: as a new session, on its pin, or moved off it. */
export type AffinityOutcome = "new" | "hit" | "moved";

/**
 * Why a session left its pinned target: its quota is exhausted, it is cooling down, its paid
 * rung's budget refused it, or the ladder serves from another rung (or left it out otherwise).
 */
export type AffinityMoveReason = "exhausted" | "cooling" | "budget" | "ladder";

/** The affinity step's answer for one request. */
export interface AffinityDecision {
  readonly outcome: AffinityOutcome;
  /** Why it moved; null unless `outcome` is `moved`. */
  readonly reason: AffinityMoveReason | null;
  /**
   * Index of the pinned target in the ladder's targets when it goes first out of its turn
   * (greater than 0); -1 when the ladder's order stands as it is.
   */
  readonly first: number;
}

const NEW: AffinityDecision = Object.freeze({ outcome: "new", reason: null, first: -1 });
const HIT_IN_ORDER: AffinityDecision = Object.freeze({ outcome: "hit", reason: null, first: -1 });
const MOVED: Readonly<Record<AffinityMoveReason, AffinityDecision>> = Object.freeze({
  exhausted: Object.freeze({ outcome: "moved", reason: "exhausted", first: -1 }),
  cooling: Object.freeze({ outcome: "moved", reason: "cooling", first: -1 }),
  budget: Object.freeze({ outcome: "moved", reason: "budget", first: -1 }),
  ladder: Object.freeze({ outcome: "moved", reason: "ladder", first: -1 }),
});

/**
 * The affinity step, after the ladder (ladder.md §16): the pinned target goes first when the
 * ladder admitted it (it is among `targets`) on the rung that serves (the first target's rung);
 * otherwise the ladder's order stands and the session moves, `whyOut` saying why. It never adds
 * a target, never drops one and never crosses a rung, so the request can reach only what the
 * ladder's order already holds (S5, THR5). No pin is `new`. Returns a shared decision and
 * allocates nothing unless the pin is moved forward.
 */
export function placeSession(
  targets: readonly DispatchTarget[],
  pin: PinnedTarget | undefined,
  whyOut: (pin: PinnedTarget) => AffinityMoveReason,
): AffinityDecision {
  if (pin === undefined) return NEW;
  const index = indexOfPin(targets, pin);
  if (index === 0) return HIT_IN_ORDER;
  if (index > 0) {
    if (targets[index]!.rung !== targets[0]!.rung) return MOVED.ladder;
    return { outcome: "hit", reason: null, first: index };
  }
  return MOVED[whyOut(pin)];
}

/**
 * The `step`-th target (from 0) a request placed by `decision` tries: the pinned one first when
 * it goes out of its turn, then the rest in the ladder's order. What the dispatcher walks;
 * allocates nothing.
 */
export function targetInAffinityOrder<T>(
  targets: readonly T[],
  decision: AffinityDecision,
  step: number,
): T | undefined {
  const first = decision.first;
  if (first <= 0) return targets[step];
  if (step === 0) return targets[first];
  return targets[step <= first ? step - 1 : step];
}

/** Every target in the order a request placed by `decision` tries them (explain's view). */
export function affinityOrder<T>(targets: readonly T[], decision: AffinityDecision): readonly T[] {
  if (decision.first <= 0) return targets;
  return targets.map((_, step) => targetInAffinityOrder(targets, decision, step)!);
}

/**
 * Why the ladder did not keep a pinned target, read from the same live state its pool build
 * reads: its quota reading is below the cutoff or exhausted (`exhausted`), it is cooling down
 * (`cooling`), its paid rung's budget is spent (`budget`); anything else (another rung serves,
 * the connection left the config or the client key's scope, overage evidence bars it) is the
 * ladder's own order (`ladder`).
 */
export function pinnedTargetOut(
  table: RoutingTable,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
  pin: PinnedTarget,
): AffinityMoveReason {
  const connection = table.connections.get(pin.connectionId);
  const rung = table.rungOf(pin.connectionId, pin.model);
  if (!connection || !rung) return "ladder";
  const state = live.quotaState(connection.config.provider, pin.connectionId, pin.model);
  // An unknown or stale reading is not an exhausted one: only a reading that says so counts.
  if (state !== undefined && !isQuotaUsable(state, { ...ladderOptions, admitUnknownQuota: true })) {
    return "exhausted";
  }
  if (live.isCoolingDown(pin.connectionId, pin.model)) return "cooling";
  if (isPaidRung(rung) && readRungBudget(rung, ladderOptions).exhausted) return "budget";
  return "ladder";
}

function indexOfPin(targets: readonly DispatchTarget[], pin: PinnedTarget): number {
  for (let index = 0; index < targets.length; index++) {
    const target = targets[index]!;
    if (target.connection.config.id === pin.connectionId && target.model === pin.model) {
      return index;
    }
  }
  return -1;
}
