import { requireNonEmptyString, requireNonNegativeInteger } from "./errors";
import { type MicroUsd, microToUsd } from "./money";
import type { Reservation } from "./reservation";
import { recordTime, type SpendRecord } from "./spend-record";

/** What {@link SpendLedger.settle} records besides the cost. */
export interface SettleRecordInput {
  /** Defaults to the reservation's connection. */
  connectionId?: string;
  model: string;
  /** All prompt tokens, cached reads and cache writes included. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  /** Id of the client key (never the key); default null. */
  clientKeyId?: string | null;
}

/** Outcome of {@link SpendLedger.settle}. */
export interface SettleResult {
  /** False when the reservation was already settled or released: nothing was booked again. */
  booked: boolean;
  /** The record written; null when nothing was booked. */
  record: SpendRecord | null;
  /** How far the actual cost exceeded the reservation, in micro-USD (0 when within it). */
  overReservationMicroUsd: MicroUsd;
  /**
   * Present and true when the store was unreachable and the settle went to the store's local
   * journal instead; it is booked when the store is back (once: replay is idempotent).
   */
  journaled?: true;
}

/**
 * The record a settle of `reservation` at `nowMs` keeps: its cost, the reservation's window,
 * rung and ids, and `input`'s model and token counts (checked).
 */
export function settledRecord(
  reservation: Reservation,
  costMicroUsd: MicroUsd,
  nowMs: number,
  input: SettleRecordInput,
): SpendRecord {
  return {
    time: recordTime(nowMs),
    windowKey: reservation.windowKey,
    rung: reservation.rung,
    connectionId: input.connectionId ?? reservation.connectionId,
    model: requireNonEmptyString("record.model", input.model),
    inputTokens: requireNonNegativeInteger("record.inputTokens", input.inputTokens),
    outputTokens: requireNonNegativeInteger("record.outputTokens", input.outputTokens),
    cachedInputTokens: requireNonNegativeInteger(
      "record.cachedInputTokens",
      input.cachedInputTokens ?? 0,
    ),
    cacheWriteTokens: requireNonNegativeInteger(
      "record.cacheWriteTokens",
      input.cacheWriteTokens ?? 0,
    ),
    costMicroUsd,
    costUsd: microToUsd(costMicroUsd),
    reservedMicroUsd: reservation.amountMicroUsd,
    clientKeyId: input.clientKeyId ?? null,
    requestId: reservation.requestId,
    reservationId: reservation.id,
  };
}
