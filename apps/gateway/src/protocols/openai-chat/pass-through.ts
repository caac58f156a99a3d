import type { EncodeRequestOptions } from "../codec";
import { copyJson, isRecord, type Json } from "../ir/guards";
import { passThroughBody } from "../pass-through";

const USAGE_ONLY = /"choices":\s*\[\]/;

/**
 * The chat pass-through body: {@link passThroughBody}, and for a stream
 * `stream_options.include_usage` forced on, so the upstream reports usage whether or not the
 * client asked for it (the relay then hides the usage chunk from a client that did not, see
 * {@link isUsageOnlyChunk}); a whole request carries no `stream_options`.
 */
export function passThroughChat(
  body: Record<string, unknown>,
  options: EncodeRequestOptions,
): Record<string, unknown> {
  const copy = passThroughBody(body, options);
  if (options.stream) {
    const streamOptions: Json = isRecord(body.stream_options) ? copyJson(body.stream_options) : {};
    streamOptions.include_usage = true;
    copy.stream_options = streamOptions;
  } else delete copy.stream_options;
  return copy;
}

/** True when the client body asked for usage in its stream (`stream_options.include_usage`). */
export function includeUsageRequested(body: Record<string, unknown>): boolean {
  return isRecord(body.stream_options) && body.stream_options.include_usage === true;
}

/** True for the usage-only chunk (`choices: []`) that closes a stream asked to include usage. */
export function isUsageOnlyChunk(data: string): boolean {
  return USAGE_ONLY.test(data);
}
