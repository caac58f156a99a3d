import type { Redis } from "ioredis";
import type { BatchOperation } from "./redis-batch";
import { definedScript } from "./redis-defined-script";
import type { WindowRef } from "./redis-keys";
import { applyTotals, type WindowMirror } from "./redis-mirror";
import { batchScript, encodeOperations } from "./redis-scripts";

/** The batch script's answer: a flag per operation, then the window's totals after them. */
type ScriptReply = [number[], string, string, string, number];

/**
 * One script call for window `ref`: `operations` in order, then the window's totals go to the
 * mirror and every operation is answered with its flag and those totals. Never rejects: a
 * failed call rejects each operation with its error. `channel` is where the script publishes
 * the totals ('' = not now), `publishAlways` publishes them even when nothing changed.
 */
export type RunBatch = (
  ref: WindowRef,
  channel: string,
  publishAlways: boolean,
  operations: readonly BatchOperation[],
) => Promise<void>;

/**
 * Defines the batch script (redis-scripts.ts) on `client` and returns how a store calls it for
 * a window, its reply taken into `mirror`.
 */
export function defineBatchScript(client: Redis, mirror: WindowMirror): RunBatch {
  const script = definedScript<ScriptReply>(client, "planfirstSpendBatch", 8, batchScript);
  // Every command issued during one turn of the event loop leaves in one socket write: the
  // script calls of several windows, a refresh, a deferred publish. The connection is corked at
  // the first of them and uncorked once the turn's callbacks have run (process.nextTick), so
  // nothing waits longer than that turn, and the command deadline and outage rules are unchanged.
  let corked: Redis["stream"] | undefined;
  const uncork = () => {
    const stream = corked;
    corked = undefined;
    stream?.uncork();
  };
  const batchTurn = () => {
    if (corked !== undefined || client.status !== "ready") return;
    corked = client.stream;
    corked.cork();
    process.nextTick(uncork);
  };
  const runScript: typeof script = (...args) => {
    batchTurn();
    return script(...args);
  };

  return async (ref, channelArg, publishAlways, operations) => {
    let reply: ScriptReply;
    try {
      reply = await runScript(
        ...ref.keys,
        channelArg,
        ref.member,
        publishAlways ? "1" : "0",
        encodeOperations(operations),
      );
    } catch (error) {
      for (const operation of operations) operation.reject(error);
      return;
    }
    const [flags, spent, reserved, next, seq] = reply;
    applyTotals(mirror, ref.member, spent, reserved, next, Number(seq));
    const spentMicroUsd = Number(spent);
    const reservedMicroUsd = Number(reserved);
    for (let index = 0; index < operations.length; index++) {
      const flag = Number(flags[index]) === 1;
      operations[index]!.resolve({ flag, spentMicroUsd, reservedMicroUsd });
    }
  };
}

/**
 * A refresh: expires the window's stale reservations at `nowMs` and answers its totals (to the
 * mirror, and published when the call is given a channel); `onError` when Redis did not answer.
 */
export function refreshOperation(nowMs: number, onError: () => void): BatchOperation {
  return {
    kind: "x",
    nowMs,
    args: ["", "", "", ""],
    resolve: () => {},
    reject: onError,
  };
}
