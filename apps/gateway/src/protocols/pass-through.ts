import type { EncodeRequestOptions } from "./codec";
import { copyJson } from "./ir/guards";

/**
 * The upstream body for a same-protocol client body: a shallow copy with `model` replaced and
 * `stream` set (or turned off when the client sent it and the upstream answers whole). Every
 * other field, `previous_response_id` and `include` among them, goes through unchanged.
 */
export function passThroughBody(
  body: Record<string, unknown>,
  options: EncodeRequestOptions,
): Record<string, unknown> {
  // Not a spread: the copy often gains keys the body lacks (`stream`, `stream_options`,
  // `prompt_cache_key`), each a new hidden class on a spread copy (see `copyJson`).
  const copy = copyJson(body);
  copy.model = options.model;
  if (options.stream) copy.stream = true;
  else if ("stream" in copy) copy.stream = false;
  return copy;
}
