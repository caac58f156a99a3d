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
  let onMs = Number.NEGATIVE_INFINITY;
  let offMs = Number.NEGATIVE_INFINITY;
  const consider = (reading: OverageEvidenceReading | null | undefined) => {
    if (reading === null || typeof reading !== "object") return;
    if (reading.evidence !== "on" && reading.evidence !== "off") return;
    const ms = observedMs(reading);
    // Fresh = observed within maxStateAgeMs (equal is fresh); NaN is never fresh.
    if (!(nowMs - ms <= maxStateAgeMs)) return;
    if (reading.evidence === "on") {
      if (!on || ms > onMs) {
        on = reading;
        onMs = ms;
      }
    } else if (!off || ms > offMs) {
      off = reading;
      offMs = ms;
    }
  };
  if (Array.isArray(observations)) for (const reading of observations) consider(reading);
  else consider(observations as OverageEvidenceReading | null | undefined);
  const catalog = catalogVerdict.overage;
  if (on) return decided("meters-to-paid", "evidence-on", on);
  if (off && catalog !== "meters-to-paid") return decided("hard-stop", "evidence-off", off);
  if (off) return CATALOG_FINAL;
  return CATALOG_RESULTS[catalog] ?? { overage: catalog, basis: "catalog", reason: NO_EVIDENCE };
}

const NO_EVIDENCE = "no fresh overage evidence: catalog/operator value";

/** The no-evidence answers, shared: most connections of most pool builds end here. */
const CATALOG_RESULTS: Readonly<Record<string, EffectiveOverage>> = Object.freeze({
  "hard-stop": Object.freeze({ overage: "hard-stop", basis: "catalog", reason: NO_EVIDENCE }),
  "meters-to-paid": Object.freeze({
    overage: "meters-to-paid",
    basis: "catalog",
    reason: NO_EVIDENCE,
  }),
  unknown: Object.freeze({ overage: "unknown", basis: "catalog", reason: NO_EVIDENCE }),
} satisfies Record<ConnectionOverageBehavior, EffectiveOverage>);

const CATALOG_FINAL: EffectiveOverage = Object.freeze({
  overage: "meters-to-paid",
  basis: "catalog",
  reason: "catalog/operator says meters-to-paid, which evidence never upgrades",
});

/** An evidence-decided answer; its reason is built only when read (explain output). */
function decided(
  overage: ConnectionOverageBehavior,
  basis: EffectiveOverageBasis,
  observation: OverageEvidenceReading,
): EffectiveOverage {
  return {
    overage,
    basis,
    observation,
    get reason() {
      return basis === "evidence-on"
        ? `live evidence: this connection bills past its plan${describe(observation)}`
        : `live evidence: overage is off${describe(observation)}`;
    },
  };
}
