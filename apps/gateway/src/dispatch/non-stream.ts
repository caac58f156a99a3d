import { type NormalizedUsage, responseUsage, translateResponse } from "../protocols";
import { parseJsonObject } from "../protocols/ir/guards";
import { UpstreamError, type UpstreamResponse } from "../upstream";
import { clientGone } from "./client-gone";
import { FELL_THROUGH, type TargetOutcome } from "./types";
import { replyWhole, type WholeAnswerContext } from "./whole-reply";

/**
 * Serves a whole (non-stream) 2xx upstream answer: reads the body, passes it through byte for
 * byte when the upstream speaks the client's protocol and translates it through the hub when
 * not (listing dropped fields in `x-planfirst-dropped`), then `replyWhole` (redaction after usage
 * was read from the original, settle, receipt). A body that breaks off or cannot be read falls
 * through (no cooldown: the upstream did answer); a client that hung up rejects with
 * `client_closed_request`.
 */
export async function serveNonStream(
  context: WholeAnswerContext,
  response: UpstreamResponse,
): Promise<TargetOutcome> {
  const { deps, attempt, request, prepared } = context;
  const upstreamProtocol = prepared.protocol;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
    attempt.fallThrough("body_failed");
    return FELL_THROUGH;
  }
  // A completion answer is a JSON object; anything else is no answer (fall through).
  const parsed = parseJsonObject(text);
  if (parsed === null) {
    attempt.fallThrough("invalid_body");
    return FELL_THROUGH;
  }
  if (upstreamProtocol === request.api) {
    return replyWhole(context, text, responseUsage(upstreamProtocol, parsed), prepared.dropped);
  }
  let clientText: string;
  let usage: NormalizedUsage | null;
  let dropped: readonly string[] = prepared.dropped;
  try {
    const translated = translateResponse(upstreamProtocol, request.api, parsed, {
      model: attempt.target.model,
      nowMs: deps.now(),
      ...(prepared.request ? { request: prepared.request } : {}),
    });
    clientText = JSON.stringify(translated.body);
    usage = translated.usage;
    if (translated.dropped.length > 0) dropped = [...dropped, ...translated.dropped];
  } catch {
    attempt.fallThrough("invalid_body");
    return FELL_THROUGH;
  }
  return replyWhole(context, clientText, usage, dropped);
}
