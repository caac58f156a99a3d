import { createStreamCollector, encodeAnswer, type TranslatedResponse } from "../protocols";
import { UpstreamError, type UpstreamResponse } from "../upstream";
import { clientGone } from "./client-gone";
import { FELL_THROUGH, type TargetOutcome } from "./types";
import { bookUnserved, replyWhole, type WholeAnswerContext } from "./whole-reply";

/**
 * Serves a whole (non-stream) request from the 2xx stream of an upstream that only streams
 * (`streamOnly`): reads the stream to its end as SSE whatever its `Content-Type`, folds it into
 * one answer, encodes that in the client's protocol, then `replyWhole` (redaction, settle from
 * the collected usage, receipt). Pass the response through `UpstreamCalls.watch` first so in-band
 * quota events still reach the quota cache. Nothing reaches the client before the stream has
 * finished: an upstream error event, or a stream that ends or breaks off before its finish,
 * falls through to the next target with the connection cooled, as a stream that fails before
 * its first byte does; a truncated answer is never served. A client that hung up rejects with
 * `client_closed_request`. An answer not served is still booked (rule B8): a stream that did not
 * finish from the usage it reported so far and its output limit, a finished one from its usage.
 */
export async function serveCollected(
  context: WholeAnswerContext,
  response: UpstreamResponse,
): Promise<TargetOutcome> {
  const { deps, attempt, request, prepared } = context;
  const collector = createStreamCollector(prepared.leg.upstream);
  const reader = response.chunks();
  try {
    for (;;) {
      const next = await reader.next();
      if (next.done) break;
      collector.push(next.value);
      if (collector.failed()) {
        response.discard();
        break;
      }
    }
  } catch (error) {
    if (request.signal?.aborted || (UpstreamError.isInstance(error) && error.code === "aborted")) {
      await bookUnserved(context, { usage: collector.usage(), final: false });
      throw clientGone(error);
    }
    // A body that breaks off after the stream finished still holds the whole answer.
    if (!collector.finished()) response.discard();
  }
  const answer = collector.end();
  if (!answer.ok) {
    await bookUnserved(context, { usage: collector.usage(), final: false });
    const outcome = answer.error.code === "upstream_stream_cut" ? "stream_cut" : "stream_error";
    attempt.fallThrough(outcome, {
      cool: true,
      log: "upstream stream failed before its answer was whole, falling through",
    });
    return FELL_THROUGH;
  }
  let encoded: TranslatedResponse;
  try {
    encoded = encodeAnswer(prepared.leg.upstream, prepared.leg.client, answer.response, {
      model: attempt.target.model,
      nowMs: deps.now(),
      ...(prepared.request ? { request: prepared.request } : {}),
    });
  } catch {
    await bookUnserved(context, { usage: answer.response.usage, final: true });
    attempt.fallThrough("invalid_body");
    return FELL_THROUGH;
  }
  const dropped =
    encoded.dropped.length > 0 ? [...prepared.dropped, ...encoded.dropped] : prepared.dropped;
  return replyWhole(context, JSON.stringify(encoded.body), encoded.usage, dropped);
}
