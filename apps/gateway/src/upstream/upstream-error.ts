import { GatewayError } from "../errors";

/** Why an upstream call produced no usable response. */
export type UpstreamErrorCode = "timeout" | "network" | "aborted";

/**
 * An upstream call that failed without a usable HTTP response, or whose body broke off:
 * `timeout` (no response headers within `timeoutMs`, or a gap longer than `idleTimeoutMs`
 * between body chunks), `network` (refused, reset, DNS, closed mid-body), `aborted` (the
 * caller's signal fired). HTTP 502; the message names the origin only, never a credential.
 */
export class UpstreamError extends GatewayError {
  override readonly name = "UpstreamError";
  declare readonly code: UpstreamErrorCode;
  /** Origin of the upstream (`https://api.anthropic.com`): no path, no query, no user info. */
  readonly origin: string;

  constructor(code: UpstreamErrorCode, origin: string, message: string, cause?: unknown) {
    super(message, {
      code,
      status: code === "timeout" ? 504 : 502,
      type: "api_error",
      details: { origin },
      cause,
    });
    this.origin = origin;
  }
}
