/** Stable codes of {@link QuotaCacheError}. */
export type QuotaCacheErrorCode = "invalid_option" | "store_open_failed";

/**
 * The one error class of `@planfirst/quota-cache`. Thrown only while building a cache, cooldown
 * book, scheduler or store (bad options, a store file that cannot be opened); never from
 * `get`, `observe`, `fail` or any other call made on the request path.
 */
export class QuotaCacheError extends Error {
  override readonly name = "QuotaCacheError";
  /** Stable machine-readable code. */
  readonly code: QuotaCacheErrorCode;
  /** Structured details: for `invalid_option`, `path` and `allowed`. Never holds a secret. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: QuotaCacheErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}

/** Throws `invalid_option` unless `value` is a finite number within [min, max]. */
export function assertNumberOption(path: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new QuotaCacheError(
      "invalid_option",
      `${path} must be a finite number from ${min} to ${max}, got ${String(value)}`,
      { path, allowed: `${min}..${max}`, received: value },
    );
  }
}
