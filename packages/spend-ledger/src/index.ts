export type { BudgetScope, ScopeHold } from "./budget-scope";
export type { BudgetWindow } from "./budget-window";
export { BUDGET_WINDOWS, createWindowKeyer, windowKey } from "./budget-window";
export type { TokenPrice, TokenUsage } from "./cost";
export { costOf } from "./cost";
export type {
  SpendLedgerErrorCode,
  SpendLedgerErrorFields,
  SpendLedgerErrorInit,
} from "./errors";
export { SpendLedgerError } from "./errors";
export { createMemorySpendStore, type MemorySpendStoreOptions } from "./memory-store";
export type { MicroRounding, MicroUsd } from "./money";
export { formatUsd, MICRO_USD_PER_USD, microToUsd, usdToMicro } from "./money";
export type {
  RefusalReason,
  Reservation,
  ReservationRefusal,
  ReserveRequest,
} from "./reservation";
export { isRefusal } from "./reservation";
export type { SettleRecordInput, SettleResult } from "./settlement";
export type { SpendLedger, SpendLedgerOptions } from "./spend-ledger";
export { createSpendLedger, DEFAULT_RESERVATION_TIMEOUT_MS } from "./spend-ledger";
export { MINUTE, minuteOf } from "./spend-minutes";
export type { SpendRecord, SpendRecordQuery, SpendSummary, SpendTotals } from "./spend-record";
export { summarize } from "./spend-record";
export type {
  SpendStore,
  StorePruneResult,
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreReserveRequest,
  StoreReserveResult,
  StoreSettleRequest,
  StoreSettleResult,
  WindowTotals,
} from "./spend-store";
export type { WorstCaseCost, WorstCaseCostInput, WorstCaseScan } from "./worst-case-cost";
export {
  DEFAULT_MAX_OUTPUT_TOKENS,
  estimateWorstCaseCost,
  INLINE_IMAGE_TOKENS,
  priceWorstCase,
  scanWorstCase,
} from "./worst-case-cost";
