import { invalidArgument } from "./errors";

/**
 * An amount of money in integer micro-USD (1 USD = 1 000 000 micro-USD), always a safe integer.
 * All sums inside the ledger use this unit, so a million additions never drift.
 */
export type MicroUsd = number;

/** Micro-USD in one USD. */
export const MICRO_USD_PER_USD = 1_000_000;

/** How {@link usdToMicro} treats a fraction of a micro-dollar. */
export type MicroRounding = "up" | "down";

const decimalPattern = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * Converts a USD amount to integer micro-USD. The amount is read as the decimal it is written as
 * (`0.1` is one tenth, not the nearest binary double), so `usdToMicro(0.1)` is exactly `100000`.
 * A remaining fraction of a micro-dollar is rounded up by default (reservations and costs never
 * undercount); `"down"` is for budgets, which must never grow by rounding.
 *
 * @param usd a finite, non-negative amount in USD
 * @param rounding `"up"` (default) or `"down"`
 * @throws SpendLedgerError `invalid_argument` for negative, non-finite or unsafe-sized amounts
 */
export function usdToMicro(usd: number, rounding: MicroRounding = "up"): MicroUsd {
  if (typeof usd !== "number" || !Number.isFinite(usd) || usd < 0) {
    invalidArgument("usd", "a finite, non-negative number of USD", usd);
  }
  const nearest = Math.round(usd * MICRO_USD_PER_USD);
  // Fast path: the amount has at most six decimals, so the nearest integer is exact.
  if (nearest < 1e15 && nearest / MICRO_USD_PER_USD === usd) return nearest;
  return exactDecimalToMicro(usd, rounding);
}

function exactDecimalToMicro(usd: number, rounding: MicroRounding): MicroUsd {
  const match = decimalPattern.exec(String(usd));
  if (!match) invalidArgument("usd", "a finite, non-negative number of USD", usd);
  const [, whole = "0", fraction = "", exponent = "0"] = match;
  const digits = BigInt(whole + fraction);
  const scale = Number(exponent) - fraction.length + 6;
  let micro: bigint;
  if (scale >= 0) {
    micro = digits * 10n ** BigInt(scale);
  } else {
    const divisor = 10n ** BigInt(-scale);
    micro = digits / divisor;
    if (rounding === "up" && digits % divisor !== 0n) micro += 1n;
  }
  if (micro > BigInt(Number.MAX_SAFE_INTEGER)) {
    invalidArgument("usd", "at most 9 007 199 254 USD", usd);
  }
  return Number(micro);
}

/**
 * Converts integer micro-USD to a USD number (for display and for APIs that take USD). The
 * result is the double nearest the exact decimal, so `usdToMicro(microToUsd(m)) === m` for every
 * safe integer `m` below 10^15.
 */
export function microToUsd(micro: MicroUsd): number {
  return micro / MICRO_USD_PER_USD;
}

/**
 * Formats integer micro-USD as a plain decimal USD string with no float noise and no trailing
 * zeros: `5` → `"0.000005"`, `0` → `"0"`, `1_500_000` → `"1.5"`, `-20` → `"-0.00002"`. Used for
 * the gateway's `x-planfirst-cost-usd` header.
 *
 * @throws SpendLedgerError `invalid_argument` when `micro` is not a safe integer
 */
export function formatUsd(micro: MicroUsd): string {
  if (!Number.isSafeInteger(micro)) invalidArgument("micro", "a safe integer of micro-USD", micro);
  const sign = micro < 0 ? "-" : "";
  const magnitude = Math.abs(micro);
  const whole = Math.floor(magnitude / MICRO_USD_PER_USD);
  const fraction = String(magnitude % MICRO_USD_PER_USD)
    .padStart(6, "0")
    .replace(/0+$/, "");
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}

/** USD → micro-USD, with errors that name the caller's argument. An infinite budget is no cap. */
export function usdAmount(path: string, usd: number, rounding: MicroRounding): MicroUsd {
  if (usd === Number.POSITIVE_INFINITY && rounding === "down") return Number.MAX_SAFE_INTEGER;
  if (typeof usd !== "number" || !Number.isFinite(usd) || usd < 0 || usd > 9e9) {
    invalidArgument(path, "a finite, non-negative number of USD below 9e9", usd);
  }
  return usdToMicro(usd, rounding);
}
