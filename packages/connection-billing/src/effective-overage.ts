import type { ConnectionOverageBehavior } from "@planfirst/billing-catalog";

/**
 * One reading of live overage evidence for a connection (ladder.md §14), structurally the
 * `OverageObservation` of `@planfirst/quota-cache`: `on` = this connection bills, or would bill,
 * past or instead of its plan; `off` = a request now cannot bill.
 */
export interface OverageEvidenceReading {
  readonly evidence: "on" | "off";
  /** ISO-8601 instant the evidence was observed. */
  readonly observedAt: string;
  /** Where it came from (`claude-header`, `codex-usage`, `money-refusal`…). */
  readonly source?: string;
  /** Short provider detail (a disabled reason, an error code). Never a credential. */
  readonly detail?: string;
}

/** Which input decided an {@link EffectiveOverage}. */
export type EffectiveOverageBasis = "evidence-on" | "evidence-off" | "catalog";

/** The overage a connection is routed on: the catalog or operator value refined by evidence. */
export interface EffectiveOverage {
  readonly overage: ConnectionOverageBehavior;
  /** What decided it: fresh `on`, fresh `off`, or no fresh evidence (the catalog/operator value). */
  readonly basis: EffectiveOverageBasis;
  /** The observation that decided it, when evidence did. */
  readonly observation?: OverageEvidenceReading;
  /** One line for explain output: what was seen and why it wins. */
  readonly reason: string;
}

function observedMs(reading: OverageEvidenceReading): number {
  return typeof reading?.observedAt === "string" ? Date.parse(reading.observedAt) : Number.NaN;
}

/** Fresh = observed within `maxStateAgeMs` before `nowMs` (equal is fresh); the future is fresh. */
function isFresh(reading: OverageEvidenceReading, nowMs: number, maxStateAgeMs: number): boolean {
  const ms = observedMs(reading);
  if (Number.isNaN(ms)) return false;
  return nowMs - ms <= maxStateAgeMs;
}

function describe(reading: OverageEvidenceReading): string {
  const from = reading.source ? ` from ${reading.source}` : "";
  const detail = reading.detail ? ` (${reading.detail})` : "";
  return `${from}${detail} at ${reading.observedAt}`;
}

/**
 * Rule E3 of ladder.md §14 (pure): the overage a connection is routed on.
 * - Fresh evidence `on` → `meters-to-paid`, overriding the catalog **and** an operator entry.
 * - Fresh evidence `off` → `hard-stop`, even where the catalog says `unknown` (E2), but never
 *   over `meters-to-paid`: a `meters-to-paid` value (the catalog's, or an operator's opting out
 *   as E5 describes) is final; only `unknown` and `hard-stop` are refined.
 * - No fresh evidence → the catalog or operator value unchanged.
 * - `on` wins over `off` whenever both are fresh, whichever is newer: a login that was seen
 *   billing is not trusted again until that sighting ages out, because a wrong `hard-stop` can
 *   bill the operator and a wrong `meters-to-paid` only skips a plan for `maxStateAgeMs`.
 *
 * Fresh = observed within `maxStateAgeMs` (ms) before `nowMs` (exactly equal is fresh); an
 * observation with an unparseable `observedAt` is ignored. Never throws.
 *
 * @param catalogVerdict the catalog (or operator) verdict; only `overage` is read
 * @param observations none, one, or several readings (e.g. the newest `on` and newest `off`)
 * @param nowMs epoch milliseconds
 * @param maxStateAgeMs freshness limit in milliseconds (the ladder's, default 180 000)
 */
export function effectiveOverage(
  catalogVerdict: { readonly overage: ConnectionOverageBehavior },
  observations: OverageEvidenceReading | readonly OverageEvidenceReading[] | null | undefined,
  nowMs: number,
  maxStateAgeMs: number,
): EffectiveOverage {
  // One pass, no allocation: this runs for every plan connection of every pool build.
  let on: OverageEvidenceReading | undefined;
  let off: OverageEvidenceReading | undefined;
  const consider = (reading: OverageEvidenceReading | null | undefined) => {
    if (reading === null || typeof reading !== "object") return;
    if (reading.evidence !== "on" && reading.evidence !== "off") return;
    if (!isFresh(reading, nowMs, maxStateAgeMs)) return;
    if (reading.evidence === "on") {
      if (!on || observedMs(reading) > observedMs(on)) on = reading;
    } else if (!off || observedMs(reading) > observedMs(off)) {
      off = reading;
    }
  };
  if (Array.isArray(observations)) for (const reading of observations) consider(reading);
  else consider(observations as OverageEvidenceReading | null | undefined);
  if (on) {
    return {
      overage: "meters-to-paid",
      basis: "evidence-on",
      observation: on,
      reason: `live evidence: this connection bills past its plan${describe(on)}`,
    };
  }
  const catalog = catalogVerdict.overage;
  if (off && catalog !== "meters-to-paid") {
    return {
      overage: "hard-stop",
      basis: "evidence-off",
      observation: off,
      reason: `live evidence: overage is off${describe(off)}`,
    };
  }
  return {
    overage: catalog,
    basis: "catalog",
    reason:
      off && catalog === "meters-to-paid"
        ? "catalog/operator says meters-to-paid, which evidence never upgrades"
        : "no fresh overage evidence: catalog/operator value",
  };
}
