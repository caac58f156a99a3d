/** Names of the receipt headers every routed response carries. */
export const RECEIPT_HEADERS = {
  rung: "x-planfirst-rung",
  connection: "x-planfirst-connection",
  model: "x-planfirst-model",
  attempts: "x-planfirst-attempts",
  costUsd: "x-planfirst-cost-usd",
} as const;

/**
 * The answer header that says how long a request was held waiting for a plan, milliseconds from
 * its arrival to its answer; only on answers that waited.
 */
export const WAITED_MS_HEADER = "x-planfirst-waited-ms";

/** The receipt of one routed response. `costUsd` is a decimal string with micro-dollar precision. */
export interface Receipt {
  rung: string;
  connection: string;
  model: string;
  /** Targets tried, this one included. */
  attempts: number;
  costUsd: string;
}

/** Sets the receipt headers on a plain header record. */
export function writeReceipt(headers: Record<string, string>, receipt: Receipt): void {
  headers[RECEIPT_HEADERS.rung] = receipt.rung;
  headers[RECEIPT_HEADERS.connection] = receipt.connection;
  headers[RECEIPT_HEADERS.model] = receipt.model;
  headers[RECEIPT_HEADERS.attempts] = String(receipt.attempts);
  headers[RECEIPT_HEADERS.costUsd] = receipt.costUsd;
}

/** The receipt of a response served by `target`. */
export function receiptOf(
  target: {
    readonly rung: string;
    readonly model: string;
    readonly connection: { readonly config: { readonly id: string } };
  },
  attempts: number,
  costUsd: string,
): Receipt {
  return {
    rung: target.rung,
    connection: target.connection.config.id,
    model: target.model,
    attempts,
    costUsd,
  };
}
