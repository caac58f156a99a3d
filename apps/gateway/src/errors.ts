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
  /** `ok`, `upstream_error`, `rate_limited`, `timeout`, `network`, `budget_refused`, `cooling_down`, … */
  outcome: string;
  /** Upstream HTTP status, when there was a response. */
  status?: number;
}

/**
 * Base class of every error the gateway throws on purpose. `status` is the HTTP status the one
 * `onError` answers with; `code` is stable and appears in the error body; the message never
 * contains a credential.
 */
export class GatewayError extends Error {
  override readonly name: string = "GatewayError";
  readonly code: string;
  readonly status: number;
  /** Error `type` in OpenAI-shaped bodies (`invalid_request_error`, `rate_limit_error`, …). */
  readonly type: string;
  /** Extra JSON-safe fields copied into the error body. */
  readonly details: Record<string, unknown>;
  /** Seconds for a `Retry-After` header, when the client should come back later. */
  readonly retryAfterSec: number | undefined;

  constructor(
    message: string,
    options: {
      code: string;
      status: number;
      type?: string;
      details?: Record<string, unknown>;
      retryAfterSec?: number;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
    this.type = options.type ?? typeForStatus(options.status);
    this.details = options.details ?? {};
    this.retryAfterSec = options.retryAfterSec;
  }
}

/** The configuration file is missing, unreadable or invalid; `problems` lists every one found. */
export class ConfigError extends GatewayError {
  override readonly name = "ConfigError";
  readonly problems: GatewayProblem[];

  constructor(message: string, problems: GatewayProblem[], cause?: unknown) {
    const listed = problems.map((p) => `  - ${p.path || "(root)"}: ${p.message}`).join("\n");
    super(problems.length > 0 ? `${message}\n${listed}` : message, {
      code: "invalid_config",
      status: 500,
      details: { problems },
      cause,
    });
    this.problems = problems;
  }
}

function typeForStatus(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}
