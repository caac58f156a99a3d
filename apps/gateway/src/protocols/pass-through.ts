import type { EncodeRequestOptions } from "./codec";

/**
 * The upstream body for a same-protocol client body: a shallow copy with `model` replaced and
 * `stream` set (or turned off when the client sent it and the upstream answers whole). Every
 * other field, `previous_response_id` and `include` among them, goes through unchanged.
 */
export function passThroughBody(
  body: Record<string, unknown>,
  options: EncodeRequestOptions,
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...body, model: options.model };
  if (options.stream) copy.stream = true;
  else if ("stream" in copy) copy.stream = false;
  return copy;
}
