/** Stable codes of {@link QuotaCacheError}. */
export type QuotaCacheErrorCode = "invalid_option" | "store_open_failed";

const MARKER = Symbol.for("planfirst.error.QuotaCacheError");

/** What a {@link QuotaCacheError} is built from: its code, message, cause and fields. */
export interface QuotaCacheErrorInit {
  code: QuotaCacheErrorCode;
  message: string;
  /** The underlying error, when one exists. */
  cause?: unknown;
  /** For `invalid_option`: dotted path of the option, e.g. `cooldown.baseMs`. */
  path?: string;
  /** For `invalid_option`: what the option accepts, e.g. `0..3600000`. */
  allowed?: string;
  /** For `invalid_option`: the value that was passed (numbers only; never a secret). */
  received?: unknown;
  /** For `store_open_failed`: which store, e.g. `sqlite`. */
  store?: string;
}

/**
 * The one error class of `@planfirst/quota-cache`. Thrown only while building a cache, cooldown
 * book, scheduler or store (bad options, a store file that cannot be opened); never from
 * `get`, `observe`, `fail` or any other call made on the request path. Recognise it with
 * {@link QuotaCacheError.isInstance}, which also works across two loaded copies (ESM and CJS).
 */
export class QuotaCacheError extends Error {
  override readonly name = "QuotaCacheError";
  /** Stable machine-readable code. */
  readonly code: QuotaCacheErrorCode;
  /** For `invalid_option`: the option's dotted path. */
  readonly path: string | undefined;
  /** For `invalid_option`: what the option accepts. */
  readonly allowed: string | undefined;
  /** For `invalid_option`: the value received. */
  readonly received: unknown;
  /** For `store_open_failed`: which store. */
  readonly store: string | undefined;

  constructor({ code, message, cause, path, allowed, received, store }: QuotaCacheErrorInit) {
    super(message, cause === undefined ? undefined : { cause });
    Object.defineProperty(this, MARKER, { value: true });
    this.code = code;
    this.path = path;
    this.allowed = allowed;
    this.received = received;
    this.store = store;
  }

  /** True for a `QuotaCacheError` from any loaded copy of this package. */
  static isInstance(error: unknown): error is QuotaCacheError {
    return hasMarker(error, MARKER);
  }
}

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error;
}

/** Throws `invalid_option` unless `value` is a finite number within [min, max]. */
export function assertNumberOption(path: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new QuotaCacheError({
      code: "invalid_option",
      message: `${path} must be a finite number from ${min} to ${max}, got ${String(value)}`,
      path,
      allowed: `${min}..${max}`,
      received: value,
    });
  }
}
