/** Stable codes of {@link SpendLedgerError}. */
export type SpendLedgerErrorCode =
  /** An argument or option failed validation; `path` names it and `allowed` says what is accepted. */
  | "invalid_argument"
  /** The store could not complete an operation (database or Redis failure); see `cause`. */
  | "store_failure"
  /**
   * The shared store (Redis) cannot be reached right now; nothing was reserved. Refuse the paid
   * request or skip the paid rung, and try again later.
   */
  | "store_unavailable"
  /** Another process owns the SQLite spend store (or journal) file; the message names it. */
  | "store_locked";

const MARKER = Symbol.for("planfirst.error.SpendLedgerError");

/** What a {@link SpendLedgerError} is built from: its code, message, cause and fields. */
export interface SpendLedgerErrorInit {
  code: SpendLedgerErrorCode;
  message: string;
  /** Dotted path of the offending argument or option, e.g. `budgetsUsd.cheap`. */
  path?: string;
  /** What the argument accepts, in words or as the list of allowed values. */
  allowed?: string;
  /** The underlying error, when one exists. */
  cause?: unknown;
}

/** Structured fields carried by a {@link SpendLedgerError} (its init without code and message). */
export type SpendLedgerErrorFields = Omit<SpendLedgerErrorInit, "code" | "message">;

/**
 * The one error class of `@planfirst/spend-ledger`. `name` is always `"SpendLedgerError"`;
 * branch on `code`. Messages never contain secrets (connection strings are not echoed).
 * Recognise it with {@link SpendLedgerError.isInstance}, which also works across two loaded
 * copies of the package (ESM and CJS).
 */
export class SpendLedgerError extends Error {
  override readonly name = "SpendLedgerError";
  readonly code: SpendLedgerErrorCode;
  readonly path: string | undefined;
  readonly allowed: string | undefined;

  constructor({ code, message, cause, path, allowed }: SpendLedgerErrorInit) {
    super(message, cause === undefined ? undefined : { cause });
    Object.defineProperty(this, MARKER, { value: true });
    this.code = code;
    this.path = path;
    this.allowed = allowed;
  }

  /** True for a `SpendLedgerError` from any loaded copy of this package. */
  static isInstance(error: unknown): error is SpendLedgerError {
    return typeof error === "object" && error !== null && MARKER in error;
  }
}

/** Throws `invalid_argument` naming the path, the allowed values and what was received. */
export function invalidArgument(path: string, allowed: string, received: unknown): never {
  throw new SpendLedgerError({
    code: "invalid_argument",
    message: `${path} must be ${allowed}; received ${describeValue(received)}`,
    path,
    allowed,
  });
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 80));
  if (typeof value === "number" || typeof value === "boolean" || value == null) {
    return String(value);
  }
  return typeof value;
}

/** Validates a non-negative safe integer (token counts, micro-USD amounts). */
export function requireNonNegativeInteger(path: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    invalidArgument(path, "a non-negative safe integer", value);
  }
  return value;
}

/** Validates a non-empty string identifier. */
export function requireNonEmptyString(path: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0) {
    invalidArgument(path, "a non-empty string", value);
  }
  return value;
}
