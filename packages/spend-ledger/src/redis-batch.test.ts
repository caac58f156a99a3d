import { describe, expect, it } from "vitest";
import { type BatchOperation, createBatchQueue, MAX_CALLS_IN_FLIGHT } from "./redis-batch";
import { SETTLE_DELAY_MS } from "./spend-store";

/** One call handed to `send`: its window, its operations' ids, and how to end it. */
interface Call {
  window: string;
  ids: string[];
  /** Resolves every operation, as a script reply does. */
  answer(): void;
  /** Rejects every operation, as a command deadline does. */
  fail(): void;
}

/** A queue whose calls stay unanswered until the test answers them. */
function queueWithCalls(maxCallsInFlight?: number) {
  const calls: Call[] = [];
  const queue = createBatchQueue<string>((window, operations) => {
    return new Promise<void>((resolve) => {
      calls.push({
        window,
        ids: operations.map((operation) => String(operation.args[0])),
        answer: () => {
          for (const operation of operations) {
            operation.resolve({ flag: true, spentMicroUsd: 0, reservedMicroUsd: 0 });
          }
          resolve();
        },
        fail: () => {
          for (const operation of operations) operation.reject(new Error("timed out"));
          resolve();
        },
      });
    });
  }, maxCallsInFlight);
  return { queue, calls };
}

const operation = (id: string): BatchOperation => ({
  kind: "r",
  nowMs: 0,
  args: [id, "1", "", 1],
  resolve: () => {},
  reject: () => {},
});

/** Lets the current turn end: setImmediate callbacks queued before this one have run. */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("createBatchQueue", () => {
  it("sends an urgent operation at the end of its turn while fewer calls than the limit are out", async () => {
    const { queue, calls } = queueWithCalls(2);
    queue.add("w", operation("a"), true);
    queue.add("w", operation("b"), true);
    expect(calls).toHaveLength(0);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([["a", "b"]]);
    queue.add("w", operation("c"), true);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([["a", "b"], ["c"]]);
  });

  it("holds urgent operations while the limit of calls is out and sends them together once one answers", async () => {
    const { queue, calls } = queueWithCalls(2);
    queue.add("w", operation("a"), true);
    await endOfTurn();
    queue.add("w", operation("b"), true);
    await endOfTurn();
    queue.add("w", operation("c"), true);
    await endOfTurn();
    queue.add("v", operation("d"), true);
    queue.add("w", operation("e"), true);
    await endOfTurn();
    // Two calls out: c, d and e wait, in order, per window.
    expect(calls.map((call) => call.ids)).toEqual([["a"], ["b"]]);
    calls[1]!.answer();
    await endOfTurn();
    await endOfTurn();
    expect(calls.slice(2).map((call) => [call.window, call.ids])).toEqual([
      ["w", ["c", "e"]],
      ["v", ["d"]],
    ]);
  });

  it("frees a slot when a call ends with its operations rejected", async () => {
    const { queue, calls } = queueWithCalls(1);
    queue.add("w", operation("a"), true);
    await endOfTurn();
    queue.add("w", operation("b"), true);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([["a"]]);
    calls[0]!.fail();
    await endOfTurn();
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([["a"], ["b"]]);
  });

  it("flush sends what waits behind the calls out, and resolves once every call has answered", async () => {
    const { queue, calls } = queueWithCalls(1);
    queue.add("w", operation("a"), true);
    await endOfTurn();
    queue.add("w", operation("b"), true);
    let flushed = false;
    const flushing = queue.flush().then(() => {
      flushed = true;
    });
    expect(calls.map((call) => call.ids)).toEqual([["a"], ["b"]]);
    calls[0]!.answer();
    await endOfTurn();
    expect(flushed).toBe(false);
    calls[1]!.answer();
    await flushing;
    expect(flushed).toBe(true);
  });

  it("lets a settle ride with the next urgent call, or leave after the settle delay", async () => {
    const { queue, calls } = queueWithCalls(2);
    queue.add("w", operation("settle-1"), false);
    queue.add("w", operation("reserve-1"), true);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([["settle-1", "reserve-1"]]);
    queue.add("w", operation("settle-2"), false);
    await endOfTurn();
    expect(calls).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_DELAY_MS + 20));
    expect(calls.map((call) => call.ids)).toEqual([["settle-1", "reserve-1"], ["settle-2"]]);
  });

  it("keeps at most MAX_CALLS_IN_FLIGHT calls out by default under a stream of reserves", async () => {
    const { queue, calls } = queueWithCalls();
    for (let turn = 0; turn < 10; turn++) {
      queue.add("w", operation(`r${turn}`), true);
      await endOfTurn();
    }
    expect(calls).toHaveLength(MAX_CALLS_IN_FLIGHT);
    for (const call of calls.slice()) call.answer();
    await endOfTurn();
    await endOfTurn();
    // Everything that waited leaves in one call, in the order it was queued.
    expect(calls.slice(MAX_CALLS_IN_FLIGHT).map((call) => call.ids)).toEqual([
      Array.from(
        { length: 10 - MAX_CALLS_IN_FLIGHT },
        (_, index) => `r${index + MAX_CALLS_IN_FLIGHT}`,
      ),
    ]);
  });
});
