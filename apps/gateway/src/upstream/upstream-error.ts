import { GatewayError, hasErrorMarker, markError } from "../errors";

/** Why an upstream call produced no usable response. */
type UpstreamErrorCode = "timeout" | "network" | "aborted";

/** What an {@link UpstreamError} is built from. */
interface UpstreamErrorInit {
  code: UpstreamErrorCode;
  /** Origin of the upstream: no path, no query, no user info. */
  origin: string;
  /** Names the origin only, never a credential. */
  message: string;
  cause?: unknown;
}

const MARKER = Symbol.for("planfirst.error.UpstreamError");

/**
 * An upstream call that failed without a usable HTTP response, or whose body broke off:
 * `timeout` (no response headers within `timeoutMs`, or a gap longer than `idleTimeoutMs`
 * between body chunks), `network` (refused, reset, DNS, closed mid-body), `aborted` (the
 * caller's signal fired). The one `onError` answers 504 for `timeout`, else 502.
 */
export class UpstreamError extends GatewayError {
  override readonly name = "UpstreamError";
  declare readonly code: UpstreamErrorCode;
  /** Origin of the upstream (`https://api.anthropic.com`): no path, no query, no user info. */
  readonly origin: string;

  constructor({ code, origin, message, cause }: UpstreamErrorInit) {
    super({ code, message, details: { origin }, cause });
    markError(this, MARKER);
    this.origin = origin;
  }

  /** True for an `UpstreamError` from any loaded copy of the gateway. */
  static override isInstance(error: unknown): error is UpstreamError {
    return hasErrorMarker(error, MARKER);
  }
}
