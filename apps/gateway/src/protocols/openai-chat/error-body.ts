import type { ErrorFields } from "../codec";

/** OpenAI's error body, `{ "error": { message, type, code, param, ... } }` (chat completions and Responses). */
export function openAiErrorBody(fields: ErrorFields): Record<string, unknown> {
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
