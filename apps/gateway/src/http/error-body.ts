import type { WireProtocol } from "../protocols";

/** Fields of an error answer, shaped per client protocol by `errorBody`. */
export interface ErrorFields {
  message: string;
  /** Error type: `invalid_request_error`, `rate_limit_error`, `api_error`, … */
  type: string;
  /** Stable code, e.g. `plan_quota_exhausted`, `model_not_found`. */
  code: string;
  /** Extra JSON-safe fields (reasons, attempts, …). */
  details?: Record<string, unknown>;
}

/**
 * An error body in the client's shape: OpenAI `{ "error": { message, type, code, ... } }` on
 * `/v1/chat/completions` and the other routes, Anthropic `{ "type": "error", "error": { type,
 * message, ... } }` on `/v1/messages`.
 */
export function errorBody(protocol: WireProtocol, fields: ErrorFields): Record<string, unknown> {
  if (protocol === "anthropic") {
    return {
      type: "error",
      error: { type: fields.type, message: fields.message, code: fields.code, ...fields.details },
    };
  }
  return {
    error: {
      message: fields.message,
      type: fields.type,
      code: fields.code,
      param: null,
      ...fields.details,
    },
  };
}

/** Best-effort human message out of an upstream error body of either protocol. */
export function upstreamErrorMessage(body: unknown, fallback: string): string {
  if (typeof body === "object" && body !== null) {
    const record = body as Record<string, unknown>;
    const error = record.error;
    if (typeof error === "object" && error !== null) {
      const message = (error as Record<string, unknown>).message;
      if (typeof message === "string" && message !== "") return message;
    }
    if (typeof error === "string" && error !== "") return error;
    if (typeof record.message === "string" && record.message !== "") return record.message;
  }
  return fallback;
}

/** The upstream error's type, when it sent one (`invalid_request_error`, …). */
export function upstreamErrorType(body: unknown): string | undefined {
  if (typeof body === "object" && body !== null) {
    const error = (body as Record<string, unknown>).error;
    if (typeof error === "object" && error !== null) {
      const type = (error as Record<string, unknown>).type;
      if (typeof type === "string" && type !== "") return type;
    }
  }
  return undefined;
}
