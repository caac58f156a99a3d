const MARKER = Symbol.for("planfirst.error.ConnectorError");

/**
 * Stable codes of {@link ConnectorError}:
 * - `unknown_provider`: no connector is registered for the provider id (and auth type), and its
 *   protocol has no generic connector.
 * - `invalid_connector_config`: the connection's settings do not fit its connector.
 * - `credential_missing`: a credential the connector needs is not set.
 * - `credential_refresh_failed`: the token endpoint refused or could not be reached.
 * - `endpoint_discovery_failed`: the provider did not tell us where to send inference.
 * - `account_setup_failed`: the provider account could not be set up to serve (Code Assist
 *   onboarding refused, not done in time, or a tier needing a project of the user's own).
 */
export type ConnectorErrorCode =
  | "unknown_provider"
  | "invalid_connector_config"
  | "credential_missing"
  | "credential_refresh_failed"
  | "endpoint_discovery_failed"
  | "account_setup_failed";

/**
 * An error of a plan connector. Names the connection, never carries a credential: messages are
 * built from ids, URLs and status codes only, and upstream bodies are not copied in (a token
 * endpoint may echo what it was sent).
 */
export class ConnectorError extends Error {
  override readonly name = "ConnectorError";
  readonly code: ConnectorErrorCode;
  /** Connection the error concerns, when there is one. */
  readonly connectionId: string | undefined;
  /** Upstream HTTP status, when a response caused the error. */
  readonly upstreamStatus: number | undefined;
  readonly [MARKER] = true;

  constructor(options: {
    code: ConnectorErrorCode;
    message: string;
    cause?: unknown;
    connectionId?: string;
    upstreamStatus?: number;
  }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.connectionId = options.connectionId;
    this.upstreamStatus = options.upstreamStatus;
  }

  /** True for a ConnectorError from any loaded copy of this module. */
  static isInstance(error: unknown): error is ConnectorError {
    return typeof error === "object" && error !== null && MARKER in error;
  }
}
