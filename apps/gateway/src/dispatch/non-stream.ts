import type { WholeAnswer } from "../protocols";
import { parseJsonObject } from "../protocols/ir/guards";
import { UpstreamError, type UpstreamResponse } from "../upstream";
import { clientGone } from "./client-gone";
import { FELL_THROUGH, type TargetOutcome } from "./types";
import { bookUnserved, replyWhole, type WholeAnswerContext } from "./whole-reply";

const NOTHING_REPORTED = { usage: null, final: false } as const;

/**
 * Serves a whole (non-stream) 2xx upstream answer: reads the body and has the request's leg make
 * the client's answer of it (`Leg.readWhole`: byte for byte when the upstream speaks the client's
 * protocol, translated through the hub when not, dropped fields listed in
 * `x-planfirst-dropped`), then `replyWhole` (redaction after usage was read from the original,
 * settle, receipt). A body that breaks off or cannot be read falls through (no cooldown: the
 * upstream did answer); a client that hung up rejects with `client_closed_request`. Either way
 * the upstream ran the request and billed it: its reservation is settled at the amount reserved,
 * since nothing says what it generated (rule B8).
 */
export async function serveNonStream(
  context: WholeAnswerContext,
  response: UpstreamResponse,
): Promise<TargetOutcome> {
  const { deps, attempt, prepared } = context;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    await bookUnserved(context, NOTHING_REPORTED);
    if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
    attempt.fallThrough("body_failed");
    return FELL_THROUGH;
  }
  // A completion answer is a JSON object; anything else is no answer (fall through).
  const parsed = parseJsonObject(text);
  let answer: WholeAnswer | null = null;
  if (parsed !== null) {
    try {
      answer = prepared.leg.readWhole(prepared, text, parsed, attempt.target.model, deps.now);
    } catch {
      answer = null;
    }
  }
  if (answer === null) {
    await bookUnserved(context, NOTHING_REPORTED);
    attempt.fallThrough("invalid_body");
    return FELL_THROUGH;
  }
  return replyWhole(context, answer.text, answer.usage, answer.dropped);
}
