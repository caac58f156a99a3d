import type { Logger } from "pino";
import { WAITED_MS_HEADER } from "../dispatch/receipt";
import { GatewayError, type GatewayErrorCode } from "../errors";
import type { BodyReply } from "../http/reply";
import { type ClientProtocolName, clientWireOf, type IrStreamError } from "../protocols";
import { packageErrorToGateway, unknownError } from "./package-errors";

/** The HTTP answer of one error code: its status and the `type` in the error body. */
interface ErrorHttp {
  readonly status: number;
  /** `invalid_request_error`, `rate_limit_error`, `api_error`, … */
  readonly type: string;
}

/**
 * Codes → HTTP, the only place a gateway error meets a status. Keyed by the full code union so
 * a new code does not compile until its status is chosen here.
 */
export const ERROR_HTTP: Readonly<Record<GatewayErrorCode, ErrorHttp>> = {
  invalid_json: { status: 400, type: "invalid_request_error" },
  invalid_request: { status: 400, type: "invalid_request_error" },
  invalid_max_wait: { status: 400, type: "invalid_request_error" },
  missing_model: { status: 400, type: "invalid_request_error" },
  unsupported_field: { status: 400, type: "invalid_request_error" },
  invalid_field: { status: 400, type: "invalid_request_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  // A client key asked for what only an admin key may see or do (/metrics, a reload).
  admin_key_required: { status: 403, type: "permission_error" },
  // Every target refused the client program itself (Kimi For Coding admits coding agents only).
  client_refused: { status: 403, type: "permission_error" },
  model_not_found: { status: 404, type: "invalid_request_error" },
  unknown_category: { status: 404, type: "invalid_request_error" },
  route_not_found: { status: 404, type: "not_found_error" },
  request_too_large: { status: 413, type: "request_too_large" },
  // The request was understood; the file it asks to apply was not, and nothing changed.
  config_reload_refused: { status: 422, type: "invalid_request_error" },
  // The one answer on which Codex CLI drops its Responses WebSocket for HTTP at once.
  websocket_unsupported: { status: 426, type: "invalid_request_error" },
  plan_quota_exhausted: { status: 429, type: "rate_limit_error" },
  all_targets_rate_limited: { status: 429, type: "rate_limit_error" },
  budget_exhausted: { status: 429, type: "rate_limit_error" },
  key_budget_exhausted: { status: 429, type: "rate_limit_error" },
  key_rate_limited: { status: 429, type: "rate_limit_error" },
  // Nginx's "client closed request": never seen by the client, only by logs and metrics.
  client_closed_request: { status: 499, type: "invalid_request_error" },
  invalid_config: { status: 500, type: "api_error" },
  internal_error: { status: 500, type: "api_error" },
  all_targets_failed: { status: 502, type: "api_error" },
  network: { status: 502, type: "api_error" },
  aborted: { status: 502, type: "api_error" },
  usage_poll_failed: { status: 502, type: "api_error" },
  connector_failed: { status: 502, type: "api_error" },
  no_available_target: { status: 503, type: "api_error" },
  spend_store_unavailable: { status: 503, type: "api_error" },
  local_capacity: { status: 503, type: "api_error" },
  timeout: { status: 504, type: "api_error" },
};

/**
 * 5xx codes not warned per request: already logged, logged once per outage elsewhere, or
 * counted per connection (`local_capacity`, in `planfirst_local_capacity_total`: a full
 * connection under load would otherwise write a line per refused request).
 */
const QUIET_CODES: ReadonlySet<GatewayErrorCode> = new Set([
  "internal_error",
  "spend_store_unavailable",
  "local_capacity",
]);

/** The status and type of a gateway error code. */
export function httpOfCode(code: GatewayErrorCode): ErrorHttp {
  return ERROR_HTTP[code];
}

/**
 * The gateway error any failure is answered as: itself, its package's mapping
 * (`packageErrorToGateway`), else an `internal_error` logged once with a correlation id.
 */
export function asGatewayError(logger: Logger, error: unknown): GatewayError {
  if (GatewayError.isInstance(error)) return error;
  return packageErrorToGateway(error) ?? unknownError(logger, error);
}

/**
 * The error answer of any failure, in the client's `protocol` shape, with `retry-after` when
 * the error carries `retryAfterSec`. A package's error is first mapped to its gateway code
 * (`packageErrorToGateway`); anything else is logged with a fresh correlation id and answered
 * 500 `internal_error` carrying that id but not the message (it might hold a secret).
 */
export function errorReply(
  logger: Logger,
  error: unknown,
  protocol: ClientProtocolName,
): BodyReply {
  const gatewayError = asGatewayError(logger, error);
  const http = httpOfCode(gatewayError.code);
  // The spend store warns once per outage itself; a line per refused request would flood.
  if (http.status >= 500 && !QUIET_CODES.has(gatewayError.code)) {
    logger.warn({ code: gatewayError.code }, gatewayError.message);
  }
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (gatewayError.retryAfterSec !== undefined) {
    headers["retry-after"] = String(gatewayError.retryAfterSec);
  }
  if (gatewayError.waitedMs !== undefined) {
    headers[WAITED_MS_HEADER] = String(gatewayError.waitedMs);
  }
  return {
    kind: "body",
    status: http.status,
    headers,
    body: JSON.stringify(
      clientWireOf(protocol).errorBody({
        message: gatewayError.message,
        type: http.type,
        code: gatewayError.code,
        details: gatewayError.details,
      }),
    ),
  };
}

/**
 * How a failure reads inside a stream whose headers have already left (a streaming request held
 * for a plan past its header time): the code, type and message its error answer would carry,
 * for the client protocol's error frame, and the status it would have had (for the request log).
 */
export function streamFailureOf(
  logger: Logger,
  error: unknown,
): { status: number; error: IrStreamError } {
  const gatewayError = asGatewayError(logger, error);
  const http = httpOfCode(gatewayError.code);
  return {
    status: http.status,
    error: { type: http.type, code: gatewayError.code, message: gatewayError.message },
  };
}
