/** Stable codes of `TierResolverError`. */
export type TierResolverErrorCode = "invalid_option";

const MARKER = Symbol.for("planfirst.error.TierResolverError");

/** What a {@link TierResolverError} is built from: its code, message, cause and fields. */
export interface TierResolverErrorInit {
  code: TierResolverErrorCode;
  /** What is wrong; the error's message adds the path and the allowed values around it. */
  message: string;
  /** The option, e.g. `overrides[2].tier`. */
  path: string;
  /** What the option accepts. */
  allowed: string;
  /** The underlying error, when one exists. */
  cause?: unknown;
}

/**
 * The only error `@planfirst/tier-resolver` throws: a resolver option that cannot be used.
 * `path` names the option (e.g. `overrides[2].tier`) and `allowed` what it accepts. Recognise
 * it with {@link TierResolverError.isInstance}, which also works across two loaded copies.
 */
export class TierResolverError extends Error {
  override readonly name = "TierResolverError";
  readonly code: TierResolverErrorCode;
  readonly path: string;
  readonly allowed: string;

  constructor({ code, message, cause, path, allowed }: TierResolverErrorInit) {
    super(`${path}: ${message} (allowed: ${allowed})`, cause === undefined ? undefined : { cause });
    Object.defineProperty(this, MARKER, { value: true });
    this.code = code;
    this.path = path;
    this.allowed = allowed;
  }

  /** True for a `TierResolverError` from any loaded copy of this package. */
  static isInstance(error: unknown): error is TierResolverError {
    return typeof error === "object" && error !== null && MARKER in error;
  }
}
