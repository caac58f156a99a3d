import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createSpendLedger,
  isRefusal,
  type Reservation,
  type ReservationRefusal,
  type SpendLedger,
  type SpendLedgerOptions,
  type SpendStore,
  summarize,
} from "../src/index";

/** A store under test and, when the store is shared, a way to open another handle on its data. */
export interface StoreUnderTest {
  store: SpendStore;
  /** Opens a second store on the same data (another connection, file handle or replica). */
  openPeer(): SpendStore | Promise<SpendStore>;
  /** Removes what the store left behind (temp files). Runs after every store is closed. */
  cleanup?(): void | Promise<void>;
}

const dayStartMs = Date.UTC(2026, 10, 30, 0, 0, 0);
const minuteMs = 60_000;

function isReservation(result: Reservation | ReservationRefusal): result is Reservation {
  return !isRefusal(result);
}

async function admitted(
  ledger: SpendLedger,
  rung: string,
  maxCostUsd: number,
  requestId = `req-${Math.random()}`,
): Promise<Reservation> {
  const result = await ledger.reserve({
    rung,
    connectionId: "openai",
    model: "gpt-4.1-mini",
    maxCostUsd,
    requestId,
  });
  if (!isReservation(result)) throw new Error(`expected admission, got ${JSON.stringify(result)}`);
  return result;
}

const usage = { model: "gpt-4.1-mini", inputTokens: 1000, outputTokens: 200 };

/**
 * The contract every spend store passes: the ledger's rules (B1, B2, B4, B6), atomic
 * reservations, settle/release idempotency, expiry, windows and records, run on a real store.
 */
export function describeSpendStoreContract(
  name: string,
  createStoreUnderTest: () => StoreUnderTest | Promise<StoreUnderTest>,
): void {
  describe(`${name} spend store contract`, () => {
    const opened: SpendStore[] = [];
    const cleanups: Array<() => void | Promise<void>> = [];
    let clockMs = dayStartMs;

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    async function setup(options: Partial<SpendLedgerOptions> = {}) {
      clockMs = dayStartMs;
      const subject = await createStoreUnderTest();
      opened.push(subject.store);
      if (subject.cleanup) cleanups.push(subject.cleanup);
      const ledgerOptions = (store: SpendStore): SpendLedgerOptions => ({
        store,
        budgetsUsd: { cheap: 1, premium: 0 },
        now: () => clockMs,
        reservationTimeoutMs: 10 * minuteMs,
        ...options,
      });
      const ledger = createSpendLedger(ledgerOptions(subject.store));
      await ledger.ready();
      const openPeerLedger = async () => {
        const peer = await subject.openPeer();
        if (peer !== subject.store) opened.push(peer);
        const peerLedger = createSpendLedger(ledgerOptions(peer));
        await peerLedger.ready();
        return peerLedger;
      };
      return {
        store: subject.store,
        ledger,
        openPeerLedger,
        advance: (ms: number) => {
          clockMs += ms;
        },
      };
    }

    it("B6 admits while spent + reserved + maxCost ≤ budget and refuses past it", async () => {
      const { ledger } = await setup();
      await admitted(ledger, "cheap", 0.6);
      await admitted(ledger, "cheap", 0.4);
      const refused = await ledger.reserve({
        rung: "cheap",
        connectionId: "openai",
        model: "gpt-4.1-mini",
        maxCostUsd: 0.000001,
        requestId: "one-micro-too-many",
      });
      expect(refused).toEqual({
        refused: true,
        reason: "budget_exhausted",
        spentUsd: 0,
        reservedUsd: 1,
        budgetUsd: 1,
      });
      expect(ledger.reservedUsd("cheap")).toBe(1);
    });

    it("settle releases the reservation and books the actual cost with a record", async () => {
      const { ledger, advance } = await setup();
      const reservation = await admitted(ledger, "cheap", 0.5, "req-settle");
      advance(1500);
      const settled = await ledger.settle(reservation, 0.123457, {
        ...usage,
        cachedInputTokens: 400,
        clientKeyId: "key-7",
      });
      expect(settled.booked).toBe(true);
      expect(settled.overReservationMicroUsd).toBe(0);
      expect(ledger.spentUsd("cheap")).toBe(0.123457);
      expect(ledger.reservedUsd("cheap")).toBe(0);
      const records = await ledger.records();
      expect(records).toEqual([
        {
          time: new Date(dayStartMs + 1500).toISOString(),
          windowKey: "day:2026-11-30",
          rung: "cheap",
          connectionId: "openai",
          model: "gpt-4.1-mini",
          inputTokens: 1000,
          outputTokens: 200,
          cachedInputTokens: 400,
          cacheWriteTokens: 0,
          costMicroUsd: 123_457,
          costUsd: 0.123457,
          reservedMicroUsd: 500_000,
          clientKeyId: "key-7",
          requestId: "req-settle",
          reservationId: reservation.id,
        },
      ]);
    });

    it("an actual cost above the reservation is booked in full (the documented exception)", async () => {
      const { ledger } = await setup();
      const reservation = await admitted(ledger, "cheap", 0.9);
      const settled = await ledger.settle(reservation, 1.25, usage);
      expect(settled.overReservationMicroUsd).toBe(350_000);
      expect(ledger.spentUsd("cheap")).toBe(1.25);
      expect(ledger.isExhausted("cheap")).toBe(true);
      const next = await ledger.reserve({
        rung: "cheap",
        connectionId: "openai",
        model: "m",
        maxCostUsd: 0,
        requestId: "after-overspend",
      });
      expect(next).toMatchObject({ refused: true, reason: "budget_exhausted", spentUsd: 1.25 });
    });

    it("settle is idempotent per reservation id", async () => {
      const { ledger } = await setup();
      const reservation = await admitted(ledger, "cheap", 0.3);
      await ledger.settle(reservation, 0.2, usage);
      const again = await ledger.settle(reservation, 0.2, usage);
      expect(again).toEqual({ booked: false, record: null, overReservationMicroUsd: 0 });
      expect(ledger.spentUsd("cheap")).toBe(0.2);
      expect(await ledger.records()).toHaveLength(1);
    });

    it("release books nothing, is idempotent, and a later settle books nothing", async () => {
      const { ledger } = await setup();
      const reservation = await admitted(ledger, "cheap", 0.7);
      expect(await ledger.release(reservation)).toEqual({ released: true });
      expect(await ledger.release(reservation)).toEqual({ released: false });
      expect((await ledger.settle(reservation, 0.5, usage)).booked).toBe(false);
      expect(ledger.spentUsd("cheap")).toBe(0);
      expect(ledger.reservedUsd("cheap")).toBe(0);
      expect(await ledger.records()).toEqual([]);
      await admitted(ledger, "cheap", 1);
    });

    it("a reservation never settled expires after the timeout and frees its budget", async () => {
      const { ledger, advance } = await setup();
      await admitted(ledger, "cheap", 1);
      advance(10 * minuteMs - 1);
      expect(isRefusal(await ledger.reserve({ ...reserveArgs, maxCostUsd: 0.01 }))).toBe(true);
      advance(1);
      const fresh = await admitted(ledger, "cheap", 0.25);
      expect(fresh.amountMicroUsd).toBe(250_000);
      expect(ledger.reservedUsd("cheap")).toBe(0.25);
    });

    it("the synchronous reads drop an expired reservation without another write", async () => {
      const { ledger, advance } = await setup();
      await admitted(ledger, "cheap", 0.4);
      advance(10 * minuteMs);
      await vi.waitFor(() => expect(ledger.reservedUsd("cheap")).toBe(0), { timeout: 2000 });
      expect(ledger.isExhausted("cheap")).toBe(false);
    });

    it("a settle after the reservation expired still books what was spent", async () => {
      const { ledger, advance } = await setup();
      const reservation = await admitted(ledger, "cheap", 0.4);
      advance(11 * minuteMs);
      const settled = await ledger.settle(reservation, 0.3, usage);
      expect(settled.booked).toBe(true);
      expect(ledger.spentUsd("cheap")).toBe(0.3);
      expect(ledger.reservedUsd("cheap")).toBe(0);
    });

    it("a request is booked in the window where it started", async () => {
      const { ledger, advance } = await setup();
      advance(24 * 60 * minuteMs - 1000);
      const lateReservation = await admitted(ledger, "cheap", 0.9);
      expect(lateReservation.windowKey).toBe("day:2026-11-30");
      advance(2000);
      expect(ledger.currentWindowKey()).toBe("day:2026-12-01");
      await ledger.settle(lateReservation, 0.8, usage);
      expect(ledger.spentUsd("cheap", "day:2026-11-30")).toBe(0.8);
      expect(ledger.spentUsd("cheap")).toBe(0);
      await admitted(ledger, "cheap", 1);
      const [record] = await ledger.records();
      expect(record?.windowKey).toBe("day:2026-11-30");
    });

    it("B1 a rung without a budget is always admitted and still tracked", async () => {
      const { ledger } = await setup();
      const big = await admitted(ledger, "free-for-all", 5000);
      expect(ledger.reservedUsd("free-for-all")).toBe(5000);
      expect(ledger.budgetUsd("free-for-all")).toBeUndefined();
      expect(ledger.isExhausted("free-for-all")).toBe(false);
      await ledger.settle(big, 4321.5, usage);
      expect(ledger.spentUsd("free-for-all")).toBe(4321.5);
      expect(ledger.isExhausted("free-for-all")).toBe(false);
    });

    it("B2 a budget ≤ 0 refuses every reservation", async () => {
      const { ledger } = await setup({ budgetsUsd: { premium: 0, cheap: -3 } });
      for (const rung of ["premium", "cheap"]) {
        const result = await ledger.reserve({ ...reserveArgs, rung, maxCostUsd: 0 });
        expect(result).toEqual({
          refused: true,
          reason: "budget_disabled",
          spentUsd: 0,
          reservedUsd: 0,
          budgetUsd: 0,
        });
        expect(ledger.isExhausted(rung)).toBe(true);
      }
    });

    it("B3 the spend read is a number once the store is ready (null means not gated)", async () => {
      const { ledger } = await setup();
      expect(ledger.rungSpendUsd("cheap")).toBe(0);
      await admitted(ledger, "cheap", 0.2);
      expect(ledger.rungSpendUsd("cheap")).toBe(0.2);
    });

    it("B4 exhausted exactly when spent + reserved ≥ budget", async () => {
      const { ledger } = await setup();
      const first = await admitted(ledger, "cheap", 0.5);
      await ledger.settle(first, 0.5, usage);
      const second = await admitted(ledger, "cheap", 0.499999);
      expect(ledger.isExhausted("cheap")).toBe(false);
      expect(ledger.rungSpendUsd("cheap")).toBe(0.999999);
      await ledger.settle(second, 0.499999, usage);
      const last = await admitted(ledger, "cheap", 0.000001);
      expect(ledger.isExhausted("cheap")).toBe(true);
      await ledger.release(last);
      expect(ledger.isExhausted("cheap")).toBe(false);
    });

    it("rungs and windows keep separate budgets", async () => {
      const { ledger, advance } = await setup({ budgetsUsd: { cheap: 1, other: 1 } });
      await admitted(ledger, "cheap", 1);
      await admitted(ledger, "other", 1);
      advance(24 * 60 * minuteMs);
      await admitted(ledger, "cheap", 1);
    });

    it("two ledgers on one store share one budget and see each other's spend", async () => {
      const { ledger, openPeerLedger } = await setup();
      const peerLedger = await openPeerLedger();
      const mine = await admitted(ledger, "cheap", 0.6);
      const refused = await peerLedger.reserve({ ...reserveArgs, maxCostUsd: 0.5 });
      expect(refused).toMatchObject({ refused: true, reservedUsd: 0.6 });
      await admitted(peerLedger, "cheap", 0.4);
      await ledger.settle(mine, 0.55, usage);
      await vi.waitFor(() => expect(peerLedger.spentUsd("cheap")).toBe(0.55), { timeout: 2000 });
      await vi.waitFor(() => expect(peerLedger.reservedUsd("cheap")).toBe(0.4), { timeout: 2000 });
      expect((await peerLedger.settle(mine, 0.55, usage)).booked).toBe(false);
      expect(await peerLedger.records()).toHaveLength(1);
    });

    it("records filter by time and rung, and summarize totals them exactly", async () => {
      const { ledger, advance } = await setup({ budgetsUsd: {} });
      const book = async (rung: string, connectionId: string, model: string, usd: number) => {
        const reservation = await ledger.reserve({
          rung,
          connectionId,
          model,
          maxCostUsd: usd,
          requestId: `${rung}-${usd}`,
        });
        if (!isReservation(reservation)) throw new Error("refused");
        await ledger.settle(reservation, usd, { ...usage, model });
        advance(minuteMs);
      };
      await book("cheap", "openai", "gpt-4.1-mini", 0.1);
      await book("cheap", "deepseek", "deepseek-chat", 0.2);
      await book("premium", "anthropic", "claude-sonnet-4-5", 0.3);
      const all = await ledger.records();
      expect(all.map((r) => r.costMicroUsd)).toEqual([100_000, 200_000, 300_000]);
      const cheap = await ledger.records({ rung: "cheap" });
      expect(cheap.map((r) => r.connectionId)).toEqual(["openai", "deepseek"]);
      const middle = await ledger.records({
        sinceMs: dayStartMs + minuteMs,
        untilMs: dayStartMs + 2 * minuteMs,
      });
      expect(middle.map((r) => r.model)).toEqual(["deepseek-chat"]);
      const summary = summarize(all);
      expect(summary.total).toMatchObject({ requests: 3, costMicroUsd: 600_000, costUsd: 0.6 });
      expect(summary.byRung.cheap).toMatchObject({ requests: 2, costUsd: 0.3 });
      expect(summary.byConnection.anthropic?.costMicroUsd).toBe(300_000);
      expect(summary.byModel["deepseek-chat"]?.outputTokens).toBe(200);
    });

    const alice = { scope: "key:alice", budgetUsd: 0.5 };
    const scoped = (maxCostUsd: number, requestId: string, scopes = [alice]) => ({
      ...reserveArgs,
      maxCostUsd,
      requestId,
      scopes,
    });

    it("a scoped reservation holds its amount in the scope and the rung; settle books both with one record", async () => {
      const { ledger } = await setup();
      const reservation = await ledger.reserve(scoped(0.3, "req-scoped"));
      if (!isReservation(reservation)) throw new Error("refused");
      expect(reservation.scopes).toEqual([
        { scope: "key:alice", windowKey: "day:2026-11-30", id: `${reservation.id}:s0` },
      ]);
      expect(ledger.reservedUsd("key:alice")).toBe(0.3);
      expect(ledger.reservedUsd("cheap")).toBe(0.3);
      const settled = await ledger.settle(reservation, 0.2, { ...usage, clientKeyId: "alice" });
      expect(settled.booked).toBe(true);
      expect(ledger.spentUsd("key:alice")).toBe(0.2);
      expect(ledger.spentUsd("cheap")).toBe(0.2);
      expect(ledger.reservedUsd("key:alice")).toBe(0);
      expect(ledger.reservedUsd("cheap")).toBe(0);
      const again = await ledger.settle(reservation, 0.2, usage);
      expect(again.booked).toBe(false);
      expect(ledger.spentUsd("key:alice")).toBe(0.2);
      expect(ledger.spentUsd("cheap")).toBe(0.2);
      const records = await ledger.records();
      expect(records.map((record) => [record.rung, record.costMicroUsd])).toEqual([
        ["cheap", 200_000],
      ]);
    });

    it("a scope over its budget refuses, naming it, and holds nothing of the rung", async () => {
      const { ledger } = await setup();
      const first = await ledger.reserve(scoped(0.4, "alice-1"));
      expect(isReservation(first)).toBe(true);
      expect(await ledger.reserve(scoped(0.2, "alice-2"))).toEqual({
        refused: true,
        reason: "budget_exhausted",
        spentUsd: 0,
        reservedUsd: 0.4,
        budgetUsd: 0.5,
        scope: "key:alice",
      });
      expect(ledger.reservedUsd("cheap")).toBe(0.4);
      expect(ledger.isScopeExhausted(alice)).toBe(false);
      expect(ledger.isScopeExhausted({ ...alice, budgetUsd: 0.4 })).toBe(true);
      // Another key's request still has the rest of the rung.
      const bob = await ledger.reserve(
        scoped(0.6, "bob-1", [{ scope: "key:bob", budgetUsd: 0.6 }]),
      );
      expect(isReservation(bob)).toBe(true);
      expect(ledger.reservedUsd("cheap")).toBe(1);
    });

    it("a rung refusal gives the scope's hold back", async () => {
      const { ledger } = await setup();
      await admitted(ledger, "cheap", 0.9);
      const refused = await ledger.reserve(scoped(0.2, "alice-late"));
      expect(refused).toMatchObject({ refused: true, reason: "budget_exhausted", budgetUsd: 1 });
      expect(refused).not.toHaveProperty("scope");
      expect(ledger.reservedUsd("key:alice")).toBe(0);
      expect(ledger.reservedUsd("cheap")).toBe(0.9);
    });

    it("a scope budget ≤ 0 refuses as budget_disabled and release gives back every hold", async () => {
      const { ledger } = await setup();
      const disabled = await ledger.reserve(scoped(0, "off", [{ scope: "key:off", budgetUsd: 0 }]));
      expect(disabled).toMatchObject({
        refused: true,
        reason: "budget_disabled",
        budgetUsd: 0,
        scope: "key:off",
      });
      expect(ledger.isScopeExhausted({ scope: "key:off", budgetUsd: 0 })).toBe(true);
      const reservation = await ledger.reserve(scoped(0.25, "alice-released"));
      if (!isReservation(reservation)) throw new Error("refused");
      expect(await ledger.release(reservation)).toEqual({ released: true });
      expect(await ledger.release(reservation)).toEqual({ released: false });
      expect((await ledger.settle(reservation, 0.1, usage)).booked).toBe(false);
      expect(ledger.reservedUsd("key:alice")).toBe(0);
      expect(ledger.spentUsd("key:alice")).toBe(0);
      expect(ledger.reservedUsd("cheap")).toBe(0);
    });

    it("a scope keeps its own window: a monthly key budget outlives the daily rung window", async () => {
      const { ledger, advance } = await setup();
      const monthly = { scope: "key:alice", budgetUsd: 0.5, window: "month" as const };
      const first = await ledger.reserve(scoped(0.3, "alice-day-1", [monthly]));
      if (!isReservation(first)) throw new Error("refused");
      expect(first.scopes?.[0]?.windowKey).toBe("month:2026-11");
      await ledger.settle(first, 0.3, usage);
      expect(ledger.currentWindowKey("month")).toBe("month:2026-11");
      expect(ledger.spentUsd("key:alice", "month:2026-11")).toBe(0.3);
      advance(2 * 60 * minuteMs); // still 30 November
      advance(22 * 60 * minuteMs); // 1 December: a new day and a new month
      expect(ledger.currentWindowKey("month")).toBe("month:2026-12");
      expect(isReservation(await ledger.reserve(scoped(0.5, "alice-dec", [monthly])))).toBe(true);
    });

    it("records filter by client key id", async () => {
      const { ledger } = await setup({ budgetsUsd: {} });
      for (const clientKeyId of ["alice", "bob", "alice", null]) {
        const reservation = await admitted(ledger, "cheap", 0.1);
        await ledger.settle(reservation, 0.1, { ...usage, clientKeyId });
      }
      expect(await ledger.records({ clientKeyId: "alice" })).toHaveLength(2);
      expect(await ledger.records({ clientKeyId: "bob", rung: "cheap" })).toHaveLength(1);
      expect(await ledger.records({ clientKeyId: "carol" })).toEqual([]);
    });

    it("property: reservations alone never commit more than the budget", async () => {
      const { store } = await setup();
      let run = 0;
      const step = fc.oneof(
        fc.record({
          kind: fc.constant("reserve" as const),
          // Round amounts make exact-boundary admissions common; arbitrary ones cover the rest.
          micro: fc.oneof(
            fc.integer({ min: 0, max: 400_000 }),
            fc.constantFrom(0, 1, 100_000, 250_000, 333_333, 500_000),
          ),
        }),
        fc.record({
          kind: fc.constant("settle" as const),
          pick: fc.nat(),
          ratio: fc.double({ min: 0, max: 1.5, noNaN: true }),
        }),
        fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
        fc.record({
          kind: fc.constant("advance" as const),
          ms: fc.integer({ min: 0, max: 6 * minuteMs }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), fc.constantFrom(1_000_000, 999_999)),
          fc.array(step, { maxLength: 30 }),
          async (budgetMicro, steps) => {
            run += 1;
            const rung = `prop-${run}`;
            let nowMs = dayStartMs;
            const propertyLedger = createSpendLedger({
              store,
              budgetsUsd: { [rung]: budgetMicro / 1e6 },
              now: () => nowMs,
              reservationTimeoutMs: 10 * minuteMs,
            });
            const live: Array<{ reservation: Reservation; expiresAtMs: number }> = [];
            const finished: Reservation[] = [];
            let modelSpent = 0;
            let excess = 0;
            const modelReserved = () =>
              live
                .filter((entry) => entry.expiresAtMs > nowMs)
                .reduce((sum, entry) => sum + entry.reservation.amountMicroUsd, 0);
            for (const action of steps) {
              if (action.kind === "advance") {
                nowMs += action.ms;
              } else if (action.kind === "reserve") {
                const predicted = modelSpent + modelReserved() + action.micro <= budgetMicro;
                const result = await propertyLedger.reserve({
                  ...reserveArgs,
                  rung,
                  maxCostUsd: action.micro / 1e6,
                });
                expect(isReservation(result)).toBe(predicted);
                if (isReservation(result)) {
                  live.push({ reservation: result, expiresAtMs: result.expiresAtMs });
                }
              } else {
                const all = [...live.map((entry) => entry.reservation), ...finished];
                if (all.length === 0) continue;
                const reservation = all[action.pick % all.length]!;
                const index = live.findIndex((entry) => entry.reservation === reservation);
                const held = index >= 0 && live[index]!.expiresAtMs > nowMs;
                if (action.kind === "settle") {
                  const actual = Math.floor(reservation.amountMicroUsd * action.ratio);
                  const result = await propertyLedger.settle(reservation, actual / 1e6, usage);
                  expect(result.booked).toBe(index >= 0);
                  if (index >= 0) {
                    modelSpent += actual;
                    excess += Math.max(0, actual - (held ? reservation.amountMicroUsd : 0));
                  }
                } else {
                  const result = await propertyLedger.release(reservation);
                  expect(result.released).toBe(held);
                }
                if (index >= 0) {
                  live.splice(index, 1);
                  finished.push(reservation);
                }
              }
              expect(Math.round(propertyLedger.spentUsd(rung) * 1e6)).toBe(modelSpent);
              expect(modelSpent + modelReserved()).toBeLessThanOrEqual(budgetMicro + excess);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });
}

const reserveArgs = {
  rung: "cheap",
  connectionId: "openai",
  model: "gpt-4.1-mini",
  maxCostUsd: 0.01,
  requestId: "req",
};
