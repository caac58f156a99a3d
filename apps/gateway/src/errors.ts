/** One problem found in a configuration or request: where it is and what is wrong with it. */
export interface GatewayProblem {
  /** Dotted path with indexes, e.g. `connections[2].protocol`; empty for the whole document. */
  path: string;
  /** What is wrong, naming the allowed values where there are some. */
  message: string;
}

/** Everything one attempt at one target did, listed in error bodies and counted in receipts. */
export interface AttemptRecord {
  connection: string;
  model: string;
  rung: string;
  /**
   * `ok`, `upstream_error`, `rate_limited`, `timeout`, `network`, `budget_refused`,
   * `cooling_down`, `local_capacity` (passed over: the connection was at its `maxConcurrent`), …
   */
  outcome: string;
  /** Upstream HTTP status, when there was a response. */
  status?: number;
  /**
   * The problem in words when the upstream named it (a misconfigured connection: "Copilot
   * refused the request: missing Editor-Version header"); never carries a credential.
   */
  reason?: string;
}

/**
 * Every stable code a gateway error carries. The one `onError` (`app/on-error.ts`) maps each to
 * an HTTP status and an error `type` with a table keyed by this union, so adding a code without
 * deciding its status does not compile.
 */
export type GatewayErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "invalid_max_wait"
  | "missing_model"
  | "request_too_large"
  | "client_closed_request"
  | "invalid_api_key"
  | "model_not_found"
  | "unknown_category"
  | "route_not_found"
  | "websocket_unsupported"
  | "plan_quota_exhausted"
  | "no_available_target"
  | "all_targets_rate_limited"
  | "all_targets_failed"
  | "client_refused"
  | "invalid_config"
  | "internal_error"
  | "unsupported_field"
  | "invalid_field"
  | "timeout"
  | "network"
  | "aborted"
  | "usage_poll_failed"
  | "spend_store_unavailable"
  | "local_capacity"
  | "budget_exhausted"
  | "key_budget_exhausted"
  | "key_rate_limited"
  | "connector_failed"
  | "admin_key_required"
  | "config_reload_refused";

/** What a {@link GatewayError} is built from: its code, message, cause and fields. */
interface GatewayErrorInit<Code extends GatewayErrorCode = GatewayErrorCode> {
  code: Code;
  /** Shown to the client as is: never a credential. */
  message: string;
  /** The underlying error, when one exists (never serialised into an answer). */
  cause?: unknown;
  /** Extra JSON-safe fields copied into the error body (`attempts`, `reasons`, `categories`, …). */
  details?: Record<string, unknown>;
  /** Seconds for a `Retry-After` header, when the client should come back later. */
  retryAfterSec?: number;
  /**
   * Milliseconds the request was held waiting for a plan before this answer, when it was held:
   * the answer's `x-planfirst-waited-ms`.
   */
  waitedMs?: number;
}

const GATEWAY_MARKER = Symbol.for("planfirst.error.GatewayError");

/** True when `error` is an object carrying `marker` (set by the error constructors below). */
export function hasErrorMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error;
}

/** Marks `error` as an instance of the error class behind `marker` (non-enumerable). */
export function markError(error: Error, marker: symbol): void {
  Object.defineProperty(error, marker, { value: true });
}

/**
 * Base class of every error the gateway throws on purpose. `code` is stable, appears in the
 * error body and decides the HTTP status in the one `onError`; the error itself carries no
 * status. The message never contains a credential. Recognise it with
 * {@link GatewayError.isInstance}, which also works across two loaded copies (ESM and CJS).
 */
export class GatewayError extends Error {
  override readonly name: string = "GatewayError";
  readonly code: GatewayErrorCode;
  /** Extra JSON-safe fields copied into the error body. */
  readonly details: Record<string, unknown>;
  /** Seconds for a `Retry-After` header, when the client should come back later. */
  readonly retryAfterSec: number | undefined;
  /** Milliseconds the request was held waiting for a plan, when it was held. */
  readonly waitedMs: number | undefined;

  constructor({ code, message, cause, details, retryAfterSec, waitedMs }: GatewayErrorInit) {
    super(message, cause === undefined ? undefined : { cause });
    markError(this, GATEWAY_MARKER);
    this.code = code;
    this.details = details ?? {};
    this.retryAfterSec = retryAfterSec;
    this.waitedMs = waitedMs;
  }

  /** True for a `GatewayError` (or a subclass) from any loaded copy of the gateway. */
  static isInstance(error: unknown): error is GatewayError {
    return hasErrorMarker(error, GATEWAY_MARKER);
  }
}

const CONFIG_MARKER = Symbol.for("planfirst.error.ConfigError");

/** What a {@link ConfigError} is built from. */
interface ConfigErrorInit {
  code: "invalid_config";
  /** The headline; each problem is listed on its own line after it. */
  message: string;
  /** Every problem found, in document order. */
  problems: GatewayProblem[];
  cause?: unknown;
}

/** The configuration file is missing, unreadable or invalid; `problems` lists every one found. */
export class ConfigError extends GatewayError {
  override readonly name = "ConfigError";
  declare readonly code: "invalid_config";
  readonly problems: GatewayProblem[];

  constructor({ code, message, problems, cause }: ConfigErrorInit) {
    const listed = problems.map((p) => `  - ${p.path || "(root)"}: ${p.message}`).join("\n");
    super({
      code,
      message: problems.length > 0 ? `${message}\n${listed}` : message,
      details: { problems },
      cause,
    });
    markError(this, CONFIG_MARKER);
    this.problems = problems;
  }

  /** True for a `ConfigError` from any loaded copy of the gateway. */
  static override isInstance(error: unknown): error is ConfigError {
    return hasErrorMarker(error, CONFIG_MARKER);
  }
}
