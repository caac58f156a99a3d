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
  // Copied by assignment, not by a spread: the copy often gains keys the body lacks (`stream`,
  // `stream_options`, `prompt_cache_key`), and each key added to a spread copy costs Node 20
  // a new hidden class (AGENTS.md, "Hot paths").
  const copy: Record<string, unknown> = Object.assign({}, body);
  copy.model = options.model;
  if (options.stream) copy.stream = true;
  else if ("stream" in copy) copy.stream = false;
  return copy;
}
