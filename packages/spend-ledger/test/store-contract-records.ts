import { expect, it } from "vitest";
import { summarize } from "../src/index";
import {
  admitted,
  type ContractSetup,
  dayStartMs,
  isReservation,
  minuteMs,
  usage,
} from "./store-contract-harness";

/** The contract's record cases: filters and exact totals. */
export function recordsContract(setup: ContractSetup): void {
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

  it("summary sums exactly what records lists, for every filter, the budget window included", async () => {
    const { ledger, advance } = await setup({ budgetsUsd: {} });
    const settleOne = async (rung: string, usd: number, clientKeyId: string | null) => {
      const reservation = await admitted(ledger, rung, usd);
      await ledger.settle(reservation, usd, { ...usage, cachedInputTokens: 400, clientKeyId });
    };
    await settleOne("cheap", 0.1, "alice");
    advance(minuteMs);
    await settleOne("premium", 0.25, "bob");
    // Reserved on the first day, settled on the second: booked in the first day's window.
    advance(24 * 60 * minuteMs - 2 * minuteMs);
    const firstWindow = ledger.currentWindowKey();
    const lateReservation = await admitted(ledger, "cheap", 0.4);
    advance(2 * minuteMs);
    await ledger.settle(lateReservation, 0.4, { ...usage, clientKeyId: "alice" });
    await settleOne("cheap", 0.05, "alice");
    await settleOne("cheap", 0.02, null);
    const secondWindow = ledger.currentWindowKey();
    expect(secondWindow).not.toBe(firstWindow);
    const secondDayMs = dayStartMs + 24 * 60 * minuteMs;
    const queries = [
      {},
      { rung: "cheap" },
      { clientKeyId: "alice" },
      { sinceMs: secondDayMs },
      { sinceMs: secondDayMs, clientKeyId: "alice", windowKey: secondWindow },
      { windowKey: firstWindow },
      { untilMs: dayStartMs + minuteMs, rung: "cheap" },
      { clientKeyId: "carol" },
    ];
    for (const query of queries) {
      expect(await ledger.summary(query)).toEqual(summarize(await ledger.records(query)));
    }
    // The late settle counts in the window it was reserved in, not in the one it was booked in.
    const keyWindow = await ledger.summary({ clientKeyId: "alice", windowKey: secondWindow });
    expect(keyWindow.total).toMatchObject({ requests: 1, costMicroUsd: 50_000 });
    expect((await ledger.summary({ windowKey: firstWindow })).byRung.cheap).toMatchObject({
      requests: 2,
      costMicroUsd: 500_000,
      cachedInputTokens: 400,
    });
  });

  it("summary agrees with the records for any time bounds, whole minutes or not", async () => {
    const { ledger, advance } = await setup({ budgetsUsd: {} });
    // Settled at these offsets from the start: both ends of a minute, its middle, the next
    // minutes, an hour on; every other one by a client key.
    const offsets = [0, 20_000, 59_999, 60_000, 90_000, 150_000, 3_600_000];
    let at = 0;
    for (const [index, offset] of offsets.entries()) {
      advance(offset - at);
      at = offset;
      const reservation = await admitted(ledger, index % 3 === 0 ? "premium" : "cheap", 0.01);
      await ledger.settle(reservation, 0.001 * (index + 1), {
        ...usage,
        cachedInputTokens: index,
        clientKeyId: index % 2 === 0 ? "alice" : null,
      });
    }
    const bounds = [-1, 0, 1, 19_999, 20_000, 59_999, 60_000, 60_001, 90_000, 150_000, 3_600_001];
    const queries = [
      ...bounds.map((since) => ({ sinceMs: dayStartMs + since })),
      ...bounds.map((until) => ({ untilMs: dayStartMs + until, clientKeyId: "alice" })),
      ...bounds.flatMap((since) =>
        bounds.map((until) => ({ sinceMs: dayStartMs + since, untilMs: dayStartMs + until })),
      ),
    ];
    for (const query of queries) {
      expect(await ledger.summary(query), JSON.stringify(query)).toEqual(
        summarize(await ledger.records(query)),
      );
    }
  });
}
