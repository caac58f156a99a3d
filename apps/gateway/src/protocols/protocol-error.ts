import { GatewayError, hasErrorMarker, markError } from "../errors";

/** Codes of {@link ProtocolError}. */
type ProtocolErrorCode = "unsupported_field" | "invalid_field";

/** What a {@link ProtocolError} is built from. */
interface ProtocolErrorInit {
  code: ProtocolErrorCode;
  /** JSON path of the offending field, e.g. `messages[2].content[0].type`. */
  field: string;
  /** What is wrong; the error's message prefixes the field and appends the allowed values. */
  message: string;
  /** Values that would be accepted, when there is a short list. */
  allowed?: readonly string[];
  cause?: unknown;
}

const MARKER = Symbol.for("planfirst.error.ProtocolError");

/**
 * A request or response that cannot be carried faithfully to the other protocol (answered 400
 * `invalid_request_error` by the one `onError`), naming `field` and, where there is a short list,
 * the `allowed` values; both ride in the error body as `param` and `allowed`.
 */
export class ProtocolError extends GatewayError {
  override readonly name = "ProtocolError";
  declare readonly code: ProtocolErrorCode;
  /** JSON path of the offending field in the body. */
  readonly field: string;
  /** Values that would be accepted, when there is a short list. */
  readonly allowed: readonly string[] | undefined;

  constructor({ code, field, message, allowed, cause }: ProtocolErrorInit) {
    const allowedText = allowed ? ` (allowed: ${allowed.join(", ")})` : "";
    super({
      code,
      message: `${field}: ${message}${allowedText}`,
      details: allowed ? { param: field, allowed } : { param: field },
      cause,
    });
    markError(this, MARKER);
    this.field = field;
    this.allowed = allowed;
  }

  /** True for a `ProtocolError` from any loaded copy of the gateway. */
  static override isInstance(error: unknown): error is ProtocolError {
    return hasErrorMarker(error, MARKER);
  }
}
