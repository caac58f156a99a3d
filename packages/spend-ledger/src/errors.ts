/** Stable codes of {@link SpendLedgerError}. */
export type SpendLedgerErrorCode =
  /** An argument or option failed validation; `path` names it and `allowed` says what is accepted. */
  | "invalid_argument"
  /** The store could not complete an operation (database or Redis failure); see `cause`. */
  | "store_failure";

/** Structured fields carried by a {@link SpendLedgerError}. */
export interface SpendLedgerErrorFields {
  /** Dotted path of the offending argument or option, e.g. `budgetsUsd.cheap`. */
  path?: string;
  /** What the argument accepts, in words or as the list of allowed values. */
  allowed?: string;
  /** The underlying error, when one exists. */
  cause?: unknown;
}

/**
 * The one error class of `@planfirst/spend-ledger`. `name` is always `"SpendLedgerError"`;
 * branch on `code`. Messages never contain secrets (connection strings are not echoed).
 */
export class SpendLedgerError extends Error {
  override readonly name = "SpendLedgerError";
  readonly code: SpendLedgerErrorCode;
  readonly path: string | undefined;
  readonly allowed: string | undefined;

  constructor(code: SpendLedgerErrorCode, message: string, fields: SpendLedgerErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = code;
    this.path = fields.path;
    this.allowed = fields.allowed;
  }
}

/** Throws `invalid_argument` naming the path, the allowed values and what was received. */
export function invalidArgument(path: string, allowed: string, received: unknown): never {
  throw new SpendLedgerError(
    "invalid_argument",
    `${path} must be ${allowed}; received ${describeValue(received)}`,
    { path, allowed },
  );
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
