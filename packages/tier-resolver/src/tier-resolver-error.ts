/** Stable codes of `TierResolverError`. */
export type TierResolverErrorCode = "invalid_option";

/**
 * The only error `@planfirst/tier-resolver` throws: a resolver option that cannot be used.
 * `path` names the option (e.g. `overrides[2].tier`) and `allowed` what it accepts.
 */
export class TierResolverError extends Error {
  override readonly name = "TierResolverError";
  readonly code: TierResolverErrorCode;
  readonly path: string;
  readonly allowed: string;

  constructor(
    fields: { code: TierResolverErrorCode; path: string; allowed: string; message: string },
    options?: { cause?: unknown },
  ) {
    super(`${fields.path}: ${fields.message} (allowed: ${fields.allowed})`, options);
    this.code = fields.code;
    this.path = fields.path;
    this.allowed = fields.allowed;
  }
}
