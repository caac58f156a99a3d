import type { ErrorFields } from "../codec";

/** Anthropic's error body, `{ "type": "error", "error": { type, message, ... } }`. */
export function messagesErrorBody(fields: ErrorFields): Record<string, unknown> {
  return {
    type: "error",
    error: { type: fields.type, message: fields.message, code: fields.code, ...fields.details },
  };
}
