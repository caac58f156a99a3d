import type { ConnectionBillingEntry } from "@planfirst/billing-catalog";
import {
  classifyConnectionBilling,
  type OverageEvidenceReading,
} from "@planfirst/connection-billing";
import type { QuotaState, QuotaWindow } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignRung } from "./assign-rung";
import { explainPool } from "./explain-pool";
import type { LadderCandidate, LadderOptions } from "./ladder-options";
import { at, NOW_MS } from "./ladder-test-support";
import { orderPoolByRung } from "./order-pool";
import { findProbeableConnections } from "./probeable";
import { RUNG_ORDER, rungIndex } from "./rung";
import { filterSubscriptionOnlyCandidates } from "./subscription-only";

const PROVIDERS = ["claude", "codex", "openrouter", "ollama", "zai"];
const AUTH_TYPES = ["oauth", "apikey", "none", null];
const CONNECTIONS = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];
const MODELS = ["m0", "m1", "m2", "m3"];

const catalogArb: fc.Arbitrary<ConnectionBillingEntry[]> = fc.array(
  fc
    .record({
      provider: fc.constantFrom(...PROVIDERS),
      authType: fc.option(fc.constantFrom("oauth", "apikey"), { nil: undefined }),
      billing: fc.constantFrom("subscription", "metered", "keyless", "unknown" as const),
      overage: fc.constantFrom("hard-stop", "meters-to-paid", "unknown" as const),
    })
    .map(({ authType, ...rest }) => ({
      ...rest,
      ...(authType === undefined ? {} : { authType }),
      reason: "r",
      sources: ["https://example.com"],
      reviewed: "2026-01-01",
    })),
  { maxLength: 10 },
);

const stateArb: fc.Arbitrary<QuotaState | undefined> = fc.option(
  fc.record({
    status: fc.constantFrom("available", "exhausted", "unknown" as const),
    remainingPercent: fc.option(
      fc.oneof(
        fc.constantFrom(0, 2, 3, 5, 5.5, 100, -1, Number.NaN),
        fc.double({ min: 0, max: 100, noNaN: true }),
      ),
      { nil: null },
    ),
    resetAt: fc.option(fc.constantFrom(at(-1), at(0), at(1), at(3_600_000), "garbage"), {
      nil: null,
    }),
    checkedAt: fc.constantFrom(at(-10), at(-180_000), at(-180_001), at(-1_000_000), "not a date"),
    hasBeenExhausted: fc.boolean(),
    // A probe's served verification (P3) sometimes rides along.
    windows: fc.oneof(
      fc.constant<QuotaWindow[]>([]),
      fc.constant<QuotaWindow[]>([
        {
          windowId: "served",
          remainingPercent: null,
          resetAt: null,
          status: "ok" as const,
          source: "probe",
          observedAt: at(-10),
          served: true as const,
        },
      ]),
    ),
  }),
  { nil: undefined },
);

/** Evidence from every source: fresh or stale, on or off, money refusals included. */
const evidenceArb: fc.Arbitrary<OverageEvidenceReading[]> = fc.array(
  fc.record({
    evidence: fc.constantFrom("on", "off" as const),
    observedAt: fc.constantFrom(at(0), at(-10), at(-180_000), at(-180_001), at(-900_000), "bad"),
    source: fc.constantFrom(
      "claude-header",
      "claude-money-refusal",
      "codex-usage",
      "copilot-usage",
    ),
  }),
  { maxLength: 3 },
);

const candidateArb: fc.Arbitrary<LadderCandidate> = fc.oneof(
  fc.record({
    provider: fc.constantFrom(...PROVIDERS),
    model: fc.constantFrom(...MODELS),
    connectionId: fc.constant(null),
    allowedConnectionIds: fc.array(fc.constantFrom(...CONNECTIONS), { maxLength: 6 }),
  }),
  fc.record({
    provider: fc.constantFrom(...PROVIDERS),
    model: fc.constantFrom(...MODELS),
    connectionId: fc.constantFrom(...CONNECTIONS),
  }),
  fc.record({
    provider: fc.constantFrom(...PROVIDERS),
    model: fc.constantFrom(...MODELS),
    connectionId: fc.constant(null),
  }),
);

interface World {
  catalog: ConnectionBillingEntry[];
  authTypes: Record<string, string | null>;
  states: Record<string, QuotaState | undefined>;
  tiers: Record<string, EconomicTier>;
  budgets: { cheap?: number; premium?: number };
  spend: { cheap: number | null; premium: number | null };
  admitUnknownQuota: boolean | undefined;
  evidence: Record<string, OverageEvidenceReading[]>;
}

const worldArb: fc.Arbitrary<World> = fc.record({
  catalog: catalogArb,
  authTypes: fc.record(
    Object.fromEntries(CONNECTIONS.map((id) => [id, fc.constantFrom(...AUTH_TYPES)])),
  ),
  states: fc.record(Object.fromEntries(CONNECTIONS.map((id) => [id, stateArb]))),
  tiers: fc.record(
    Object.fromEntries(
      MODELS.map((m) => [m, fc.constantFrom("free", "cheap", "premium" as const)]),
    ),
  ),
  budgets: fc.record(
    { cheap: fc.constantFrom(0, 5, 10), premium: fc.constantFrom(0, 5, 10) },
    { requiredKeys: [] },
  ),
  spend: fc.record({
    cheap: fc.option(fc.constantFrom(0, 4.99, 5, 12), { nil: null }),
    premium: fc.option(fc.constantFrom(0, 4.99, 5, 12), { nil: null }),
  }),
  admitUnknownQuota: fc.option(fc.boolean(), { nil: undefined }),
  evidence: fc.record(Object.fromEntries(CONNECTIONS.map((id) => [id, evidenceArb]))),
}) as fc.Arbitrary<World>;

function optionsOf(world: World): LadderOptions {
  return {
    catalog: world.catalog,
    now: () => NOW_MS,
    resolveAuthType: (id) => world.authTypes[id] ?? null,
    resolveQuotaState: (_p, id) => (id === null ? undefined : world.states[id]),
    resolveEconomicTier: (_p, model) => world.tiers[model] ?? "premium",
    rungBudgetUsd: world.budgets,
    resolveRungSpendUsd: (rung) => world.spend[rung],
    resolveOverageEvidence: (id) => world.evidence[id],
    ...(world.admitUnknownQuota === undefined
      ? {}
      : { admitUnknownQuota: world.admitUnknownQuota }),
  };
}

/** Q1–Q6 and S2 read directly from ladder.md, independent of the implementation. */
function referenceUsable(state: QuotaState | undefined, admitUnknown: boolean): boolean {
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

function connectionsOf(candidate: LadderCandidate): (string | null)[] {
  if (candidate.connectionId !== null) return [candidate.connectionId];
  return candidate.allowedConnectionIds ? [...candidate.allowedConnectionIds] : [null];
}

function rungOf(world: World, candidate: LadderCandidate, id: string | null) {
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

function strictSafe(world: World, candidate: LadderCandidate, id: string | null): boolean {
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
function couldBill(world: World, candidate: LadderCandidate, id: string | null): boolean {
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

function thriftyUsable(world: World, candidate: LadderCandidate, id: string | null): boolean {
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

function isSubsequence(sub: readonly string[], of: readonly string[]): boolean {
  let i = 0;
  for (const id of of) if (i < sub.length && sub[i] === id) i++;
  return i === sub.length;
}

const poolArb = fc.array(candidateArb, { maxLength: 8 });
const RUNS = { numRuns: 3000 };

describe("auto/subscription properties", () => {
  it("SUB2 SUB3 SUB4 every survivor is a verified hard-stop plan connection, allowlists are ordered subsets, none empty", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const out = filterSubscriptionOnlyCandidates(pool, optionsOf(world));
        const expected = pool.flatMap(
          (candidate, source): { source: number; candidate: LadderCandidate }[] => {
            const kept = connectionsOf(candidate).filter((id) => strictSafe(world, candidate, id));
            if (kept.length === 0) return [];
            if (candidate.connectionId !== null || candidate.allowedConnectionIds === undefined) {
              return [{ source, candidate }];
            }
            return [
              { source, candidate: { ...candidate, allowedConnectionIds: kept as string[] } },
            ];
          },
        );
        expect(out).toEqual(expected.map((e) => e.candidate));
        out.forEach((survivor, i) => {
          const input = pool[expected[i]!.source]!;
          for (const id of connectionsOf(survivor))
            expect(strictSafe(world, survivor, id)).toBe(true);
          if (survivor.connectionId === null && input.allowedConnectionIds) {
            expect(survivor.allowedConnectionIds!.length).toBeGreaterThan(0);
            expect(isSubsequence(survivor.allowedConnectionIds!, input.allowedConnectionIds)).toBe(
              true,
            );
          }
        });
      }),
      RUNS,
    );
  });

  it("E3 SUB2 no connection with fresh evidence on ever survives, whatever the catalog says", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const out = filterSubscriptionOnlyCandidates(pool, optionsOf(world));
        for (const survivor of out) {
          for (const id of connectionsOf(survivor)) {
            const fresh = (id === null ? [] : world.evidence[id]!).filter(
              (o) => NOW_MS - Date.parse(o.observedAt) <= 180_000,
            );
            expect(fresh.some((o) => o.evidence === "on")).toBe(false);
            expect(couldBill(world, survivor, id)).toBe(false);
          }
        }
      }),
      RUNS,
    );
  });

  it("P1 P5 probes go only to hard-stop plans without a usable or exhausted reading, never to a survivor", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const options = optionsOf(world);
        const probeable = findProbeableConnections(pool, options);
        for (const { candidate, position, connectionId } of probeable) {
          expect(pool[position]).toBe(candidate);
          expect(connectionsOf(candidate)).toContain(connectionId);
          expect(couldBill(world, candidate, connectionId)).toBe(false);
          const state = connectionId === null ? undefined : world.states[connectionId];
          expect(referenceUsable(state, false)).toBe(false);
          expect(referenceUsable(state, true)).toBe(true);
        }
        const explanation = explainPool(pool, options, "subscription");
        expect(explanation.probeable).toEqual(
          probeable.map((p) => ({ candidatePosition: p.position, connectionId: p.connectionId })),
        );
      }),
      RUNS,
    );
  });

  it("SUB5 unchanged input gives the same array reference, and the filter is idempotent", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const options = optionsOf(world);
        const out = filterSubscriptionOnlyCandidates(pool, options);
        const unchanged = out.length === pool.length && out.every((c, i) => c === pool[i]);
        expect(out === pool).toBe(unchanged);
        expect(filterSubscriptionOnlyCandidates(out, options)).toBe(out);
      }),
      RUNS,
    );
  });
});

describe("auto/thrifty properties", () => {
  it("THR2 THR3 THR4 sorted by rung, input order kept within a rung, one rung per candidate, nothing exhausted, nothing invented", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const out = orderPoolByRung(pool, optionsOf(world));
        const expected: { rung: number; candidate: LadderCandidate }[] = [];
        for (const candidate of pool) {
          const byRung = new Map<number, (string | null)[]>();
          for (const id of connectionsOf(candidate)) {
            if (!thriftyUsable(world, candidate, id)) continue;
            const rung = rungIndex(rungOf(world, candidate, id));
            byRung.set(rung, [...(byRung.get(rung) ?? []), id]);
          }
          const whole =
            byRung.size === 1 &&
            [...byRung.values()][0]!.length === connectionsOf(candidate).length;
          for (const [rung, ids] of byRung) {
            expected.push({
              rung,
              candidate: whole
                ? candidate
                : { ...candidate, allowedConnectionIds: ids as string[] },
            });
          }
        }
        const sorted = expected
          .map((e, i) => ({ ...e, i }))
          .sort((a, b) => a.rung - b.rung || a.i - b.i);
        expect(out).toEqual(sorted.map((e) => e.candidate));

        let previousRung = 0;
        for (const emitted of out) {
          const rungs = new Set(connectionsOf(emitted).map((id) => rungOf(world, emitted, id)));
          expect(rungs.size).toBe(1);
          const rung = rungIndex([...rungs][0]!);
          expect(rung).toBeGreaterThanOrEqual(previousRung);
          previousRung = rung;
          for (const id of connectionsOf(emitted))
            expect(thriftyUsable(world, emitted, id)).toBe(true);
          const inputIds = new Set(pool.flatMap(connectionsOf));
          for (const id of connectionsOf(emitted)) expect(inputIds.has(id)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("THR5 the thrifty order is a fixed point: ordering the output again returns it unchanged", () => {
    fc.assert(
      fc.property(worldArb, poolArb, (world, pool) => {
        const options = optionsOf(world);
        const out = orderPoolByRung(pool, options);
        expect(orderPoolByRung(out, options)).toBe(out);
      }),
      RUNS,
    );
  });
});

describe("explainPool agrees with the groupings", () => {
  it("its result and per-connection verdicts match filterSubscriptionOnlyCandidates and orderPoolByRung exactly", () => {
    fc.assert(
      fc.property(
        worldArb,
        poolArb,
        fc.constantFrom("subscription", "thrifty" as const),
        (world, pool, grouping) => {
          const options = optionsOf(world);
          const out =
            grouping === "subscription"
              ? filterSubscriptionOnlyCandidates(pool, options)
              : orderPoolByRung(pool, options);
          const explanation = explainPool(pool, options, grouping);
          expect(JSON.parse(JSON.stringify(explanation))).toBeTruthy();
          expect(explanation.result).toHaveLength(out.length);
          explanation.result.forEach((target, i) => {
            const emitted = out[i]!;
            expect(target.provider).toBe(emitted.provider);
            expect(target.model).toBe(emitted.model);
            expect(target.connectionId).toBe(emitted.connectionId);
            expect(target.allowedConnectionIds).toEqual(emitted.allowedConnectionIds ?? null);
            for (const id of connectionsOf(emitted))
              expect(RUNG_ORDER.indexOf(target.rung)).toBe(rungIndex(rungOf(world, emitted, id)));
          });
          explanation.candidates.forEach((explained, position) => {
            const emittedIds = new Set(
              explanation.result
                .filter((t) => t.candidatePosition === position)
                .flatMap((t) =>
                  connectionsOf({
                    ...pool[position]!,
                    allowedConnectionIds: t.allowedConnectionIds ?? undefined,
                  }),
                ),
            );
            expect(explained.connections.map((c) => c.connectionId)).toEqual(
              connectionsOf(pool[position]!),
            );
            for (const connection of explained.connections) {
              expect(connection.verdict === "in").toBe(emittedIds.has(connection.connectionId));
              expect(connection.rung).toBe(rungOf(world, pool[position]!, connection.connectionId));
            }
            expect(explained.verdict === "in").toBe(emittedIds.size > 0);
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});
