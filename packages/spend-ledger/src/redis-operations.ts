import { type BatchAnswer, type BatchOperation, createBatchQueue } from "./redis-batch";
import type { RedisKeyLayout, WindowRef } from "./redis-keys";
import type { PublishFolding } from "./redis-publish";
import type { RunBatch } from "./redis-script-call";
import { encodeSettleRecord } from "./redis-scripts";
import type {
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreReserveRequest,
  StoreReserveResult,
  StoreSettleRequest,
  StoreSettleResult,
} from "./spend-store";

/**
 * A Redis spend store's reserves, settles and releases as batch script operations, each queued
 * for its window's next script call. They reject when the call fails; outages and journaling
 * are the store's.
 */
interface RedisOperations {
  reserve(request: StoreReserveRequest): Promise<StoreReserveResult>;
  /** `urgent` sends it at the end of this turn rather than with the next reserve's call. */
  settle(request: StoreSettleRequest, urgent: boolean): Promise<StoreSettleResult>;
  /** `urgent` as for `settle`. */
  release(request: StoreReleaseRequest, urgent: boolean): Promise<StoreReleaseResult>;
  /** Sends everything queued now; resolves when every call sent so far has been answered. */
  flush(): Promise<void>;
}

/** The operations of a store whose script calls go through `runBatch`. */
export function createRedisOperations(options: {
  runBatch: RunBatch;
  publishing: Pick<PublishFolding, "channelFor">;
  windowOf: RedisKeyLayout["windowOf"];
}): RedisOperations {
  const { runBatch, publishing, windowOf } = options;
  // A reserve, settle or release waits in the queue for its window's next script call: one call
  // per window carries everything queued when it leaves (see redis-batch.ts for when that is).
  const queue = createBatchQueue<WindowRef>((ref, operations) => {
    let nowMs = 0;
    for (const operation of operations) if (operation.nowMs > nowMs) nowMs = operation.nowMs;
    return runBatch(ref, publishing.channelFor(ref, nowMs), false, operations);
  });
  const submit = (
    request: { rung: string; windowKey: string; nowMs: number },
    kind: BatchOperation["kind"],
    args: BatchOperation["args"],
    urgent: boolean,
  ): Promise<BatchAnswer> =>
    new Promise((resolve, reject) =>
      queue.add(
        windowOf(request.rung, request.windowKey),
        { kind, nowMs: request.nowMs, args, resolve, reject },
        urgent,
      ),
    );

  return {
    reserve: (request) =>
      submit(
        request,
        "r",
        [
          request.reservationId,
          String(request.amountMicroUsd),
          request.budgetMicroUsd === null ? "" : String(request.budgetMicroUsd),
          request.expiresAtMs,
        ],
        true,
      ).then((answer) => ({
        admitted: answer.flag,
        spentMicroUsd: answer.spentMicroUsd,
        reservedMicroUsd: answer.reservedMicroUsd,
      })),
    settle(request, urgent) {
      const { record } = request;
      return submit(
        request,
        "s",
        [
          request.reservationId,
          String(record.costMicroUsd),
          Date.parse(record.time),
          // An empty record books the cost and keeps no record (see `keepRecord`).
          request.keepRecord === false ? "" : encodeSettleRecord(record),
        ],
        urgent,
      ).then((answer) => ({
        booked: answer.flag,
        spentMicroUsd: answer.spentMicroUsd,
        reservedMicroUsd: answer.reservedMicroUsd,
      }));
    },
    release: (request, urgent) =>
      submit(request, "l", [request.reservationId, "", "", ""], urgent).then((answer) => ({
        released: answer.flag,
        spentMicroUsd: answer.spentMicroUsd,
        reservedMicroUsd: answer.reservedMicroUsd,
      })),
    flush: () => queue.flush(),
  };
}
