import { GatewayError } from "../errors";

/** Codes of {@link ProtocolError}. */
export type ProtocolErrorCode = "unsupported_field" | "invalid_field";

/**
 * A request or response that cannot be carried faithfully to the other protocol: HTTP 400
 * (`invalid_request_error`), naming `field` (a JSON path such as `messages[2].content[0].type`)
 * and, where there is a short list, the `allowed` values.
 */
export class ProtocolError extends GatewayError {
  override readonly name = "ProtocolError";
  declare readonly code: ProtocolErrorCode;
  /** JSON path of the offending field in the body. */
  readonly field: string;
  /** Values that would be accepted, when there is a short list. */
  readonly allowed: readonly string[] | undefined;

  constructor(
    code: ProtocolErrorCode,
    field: string,
    message: string,
    options: { allowed?: readonly string[]; cause?: unknown } = {},
  ) {
    const allowedText = options.allowed ? ` (allowed: ${options.allowed.join(", ")})` : "";
    super(`${field}: ${message}${allowedText}`, {
      code,
      status: 400,
      type: "invalid_request_error",
      details: options.allowed ? { param: field, allowed: options.allowed } : { param: field },
      cause: options.cause,
    });
    this.field = field;
    this.allowed = options.allowed;
  }
}
