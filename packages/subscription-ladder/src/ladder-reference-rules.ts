import { classifyConnectionBilling } from "@planfirst/connection-billing";
import type { QuotaState } from "@planfirst/quota-cache";
import { assignRung } from "./assign-rung";
import type { LadderCandidate } from "./ladder-options";
import { optionsOf, type World } from "./ladder-property-world";
import { NOW_MS } from "./ladder-test-support";

/** Q1–Q6 and S2 read directly from ladder.md, independent of the implementation. */
export function referenceUsable(state: QuotaState | undefined, admitUnknown: boolean): boolean {
  if (!state) return admitUnknown;
  const resetMs = state.resetAt === null ? Number.NaN : Date.parse(state.resetAt);
  if (!Number.isNaN(resetMs) && resetMs <= NOW_MS) return admitUnknown;
  if (state.status === "exhausted") return false;
  if (state.status === "unknown") return admitUnknown;
  const checked = Date.parse(state.checkedAt);
  if (Number.isNaN(checked) || NOW_MS - checked > 180_000) return admitUnknown;
  if (state.remainingPercent === null) {
    // P3: a probe's 2xx verified headroom.
    return state.windows.some((w) => w.served === true) ? true : admitUnknown;
  }
  const threshold = state.hasBeenExhausted ? 5 : 2;
  return state.remainingPercent > threshold;
}

/** The connections a candidate names: its bound one, its allowlist, or null for none. */
export function connectionsOf(candidate: LadderCandidate): (string | null)[] {
  if (candidate.connectionId !== null) return [candidate.connectionId];
  return candidate.allowedConnectionIds ? [...candidate.allowedConnectionIds] : [null];
}

/** The rung `assignRung` gives the candidate on connection `id` in `world`. */
export function rungOf(world: World, candidate: LadderCandidate, id: string | null) {
  const authType = id === null ? null : (world.authTypes[id] ?? null);
  return assignRung(
    candidate,
    { provider: candidate.provider, authType, connectionId: id },
    optionsOf(world),
  );
}

/** E3 read directly from ladder.md §14: fresh on bills; fresh off proves hard-stop unless meters-to-paid. */
function referenceOverage(world: World, overage: string, id: string | null): string {
  const fresh = (id === null ? [] : world.evidence[id]!).filter((o) => {
    const ms = Date.parse(o.observedAt);
    return !Number.isNaN(ms) && NOW_MS - ms <= 180_000;
  });
  if (fresh.some((o) => o.evidence === "on")) return "meters-to-paid";
  if (fresh.some((o) => o.evidence === "off") && overage !== "meters-to-paid") return "hard-stop";
  return overage;
}

/** A connection `auto/subscription` may use: a plan, effective overage hard-stop, verified quota. */
export function strictSafe(world: World, candidate: LadderCandidate, id: string | null): boolean {
  const authType = id === null ? null : (world.authTypes[id] ?? null);
  const verdict = classifyConnectionBilling(
    { provider: candidate.provider, authType },
    world.catalog,
  );
  return (
    verdict.billing === "subscription" &&
    referenceOverage(world, verdict.overage, id) === "hard-stop" &&
    referenceUsable(id === null ? undefined : world.states[id], false)
  );
}

/** A connection that could bill: not a subscription, or effective overage not hard-stop. */
export function couldBill(world: World, candidate: LadderCandidate, id: string | null): boolean {
  const authType = id === null ? null : (world.authTypes[id] ?? null);
  const verdict = classifyConnectionBilling(
    { provider: candidate.provider, authType },
    world.catalog,
  );
  return (
    verdict.billing !== "subscription" ||
    referenceOverage(world, verdict.overage, id) !== "hard-stop"
  );
}

/** A connection `auto/thrifty` may use: within its rung's budget and with usable quota. */
export function thriftyUsable(
  world: World,
  candidate: LadderCandidate,
  id: string | null,
): boolean {
  const rung = rungOf(world, candidate, id);
  const state = id === null ? undefined : world.states[id];
  if (rung === "cheap" || rung === "premium") {
    const limit = world.budgets[rung];
    const spent = world.spend[rung];
    const exhausted = limit !== undefined && (limit <= 0 || (spent !== null && spent >= limit));
    return !exhausted && referenceUsable(state, true);
  }
  return referenceUsable(state, world.admitUnknownQuota ?? true);
}

/** True when `sub` is `of` with some entries left out, in the same order. */
export function isSubsequence(sub: readonly string[], of: readonly string[]): boolean {
  let i = 0;
  for (const id of of) if (i < sub.length && sub[i] === id) i++;
  return i === sub.length;
}
