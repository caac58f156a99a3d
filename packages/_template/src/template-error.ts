const MARKER = Symbol.for("planfirst.error.TemplateError");

/** Stable codes of {@link TemplateError}. */
export type TemplateErrorCode = "invalid_argument";

/** Structured fields of a {@link TemplateError}; every field survives a rewrap. */
export interface TemplateErrorFields {
  code: TemplateErrorCode;
  message: string;
  cause?: unknown;
  /** Dotted path of the offending argument. */
  path?: string;
  /** What the argument accepts. */
  allowed?: string;
}

/**
 * The one error class of this package. `name` is stable; branch on `code`. It carries no HTTP
 * status: the gateway maps codes to statuses in its single `onError`.
 */
export class TemplateError extends Error {
  override readonly name = "TemplateError";
  readonly code: TemplateErrorCode;
  readonly path: string | undefined;
  readonly allowed: string | undefined;

  constructor(fields: TemplateErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = fields.code;
    this.path = fields.path;
    this.allowed = fields.allowed;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `TemplateError` from any loaded copy of this package (ESM or CJS). */
  static isInstance(value: unknown): value is TemplateError {
    return typeof value === "object" && value !== null && MARKER in value;
  }
}
