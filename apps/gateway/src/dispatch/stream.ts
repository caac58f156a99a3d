import { formatUsd, type Reservation } from "@planfirst/spend-ledger";
import type { GatewayDeps } from "../deps";
import type { AttemptRecord } from "../errors";
import { createSseParser, createStreamBridge, type NormalizedUsage } from "../protocols";
import { UpstreamError, type UpstreamResponse } from "../upstream";
import type { DispatchTarget } from "./build-pool";
import type { ClientRequest } from "./dispatch";
import { writeReceipt } from "./receipt";
import type { ClientStreamSource, StreamReply } from "./reply";

/** Inputs of `streamResponse`. */
export interface StreamInputs {
  deps: GatewayDeps;
  request: ClientRequest;
  target: DispatchTarget;
  response: UpstreamResponse;
  attempts: readonly AttemptRecord[];
  reservation: Reservation | null;
  estimatedInputTokens: number;
  /** Books the cost from the usage seen (null = none reported); resolves to the cost string. */
  settle(usage: NormalizedUsage | null): Promise<string>;
}

/**
 * A committed stream, or why it ended before its first byte reached the client. `clientGone`
 * means the client hung up (spend already settled): no cooldown, no fall-through.
 */
export type StreamOutcome =
  | { ok: true; reply: StreamReply }
  | { ok: false; reason: string; clientGone?: boolean };

/**
 * Streams an upstream SSE response to the client through the protocol bridge. The response is
 * committed only once the bridge has produced client bytes; a failure before that returns
 * `{ ok: false }` so the dispatcher falls through to the next target. After the first byte, an
 * upstream failure or cut ends the stream with the bridge's explicit error frame, never a clean
 * end. A client that goes away aborts the upstream. Spend is settled exactly once either way.
 */
export async function streamResponse(inputs: StreamInputs): Promise<StreamOutcome> {
  const { deps, request, target, response } = inputs;
  const connectionId = target.connection.config.id;
  const bridge = createStreamBridge(target.connection.config.protocol, request.protocol, {
    model: target.model,
    nowMs: deps.now(),
    includeUsage: includeUsageRequested(request),
  });
  const parser = createSseParser();
  const iterator = response.chunks();

  // Read until the bridge has something for the client (or the upstream fails first).
  let first = "";
  let upstreamDone = false;
  try {
    while (first === "") {
      const next = await iterator.next();
      if (next.done) {
        for (const event of parser.flush()) first += bridge.push(event);
        upstreamDone = true;
        break;
      }
      for (const event of parser.push(next.value)) first += bridge.push(event);
      if (bridge.upstreamError()) break;
    }
  } catch (error) {
    response.discard();
    if (clientWentAway(request, error)) {
      // Not the connection's fault: book what the upstream has billed, cool nothing.
      deps.metrics.countRequest(target.rung, connectionId, "client_closed", deps.now());
      await inputs.settle(bridge.usage()).catch(() => "0");
      return { ok: false, reason: "client_closed", clientGone: true };
    }
    return { ok: false, reason: "stream_failed_before_first_byte" };
  }
  if (bridge.upstreamError() || first === "") {
    response.discard();
    return {
      ok: false,
      reason: bridge.upstreamError() ? "stream_error_before_first_byte" : "empty_stream",
    };
  }

  let settled = false;
  const finish = (outcome: string): Promise<string> => {
    if (settled) return Promise.resolve("0");
    settled = true;
    deps.metrics.countRequest(target.rung, connectionId, outcome, deps.now());
    return inputs.settle(bridge.usage()).catch(() => "0");
  };
  const END = { text: "", done: true };

  // The clean end when the upstream finished properly, else the explicit error frame.
  const closeClean = (out: string) => {
    const tail = bridge.finished() ? bridge.end() : failFrame();
    void finish(bridge.finished() ? "ok" : "stream_cut");
    return { text: out + tail, done: true };
  };
  const failFrame = () =>
    bridge.fail({
      type: "api_error",
      code: "upstream_stream_cut",
      message: "the upstream stream ended before it was complete",
    });

  const source: ClientStreamSource = {
    first,
    async next() {
      if (settled) return END;
      if (upstreamDone) return closeClean("");
      try {
        const next = await iterator.next();
        if (settled) return END;
        if (next.done) {
          let out = "";
          for (const event of parser.flush()) out += bridge.push(event);
          return closeClean(out);
        }
        let out = "";
        for (const event of parser.push(next.value)) out += bridge.push(event);
        const upstreamError = bridge.upstreamError();
        if (upstreamError) {
          const tail = bridge.fail({
            type: upstreamError.type,
            code: "upstream_stream_error",
            message: upstreamError.message,
          });
          response.discard();
          void finish("stream_error");
          return { text: tail, done: true };
        }
        return { text: out, done: false };
      } catch (error) {
        if (settled) return END;
        const timedOut = (error as { code?: string } | null)?.code === "timeout";
        const tail = bridge.fail({
          type: "api_error",
          code: timedOut ? "upstream_timeout" : "upstream_stream_cut",
          message: timedOut
            ? "the upstream stopped sending before the stream was complete"
            : "the upstream stream ended before it was complete",
        });
        void finish("stream_cut");
        return { text: tail, done: true };
      }
    },
    cancel() {
      if (settled) return;
      // The client went away: stop the upstream and book what was used.
      response.discard();
      void finish("client_closed");
    },
  };

  const headers: Record<string, string> = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  };
  // Headers leave before the usage is known: on a paid rung the cost header carries the amount
  // reserved (an upper bound) and says so; the ledger books the real cost when the stream ends.
  writeReceipt(headers, {
    rung: target.rung,
    connection: connectionId,
    model: target.model,
    attempts: inputs.attempts.length,
    costUsd: inputs.reservation ? formatUsd(inputs.reservation.amountMicroUsd) : "0",
  });
  if (inputs.reservation) headers["x-planfirst-cost-basis"] = "reserved-upper-bound";
  return { ok: true, reply: { kind: "stream", status: 200, headers, source } };
}

function clientWentAway(request: ClientRequest, error: unknown): boolean {
  return (
    request.signal?.aborted === true || (error instanceof UpstreamError && error.code === "aborted")
  );
}

function includeUsageRequested(request: ClientRequest): boolean {
  if (request.protocol !== "openai") return true;
  const options = request.body.stream_options;
  return (
    typeof options === "object" &&
    options !== null &&
    (options as Record<string, unknown>).include_usage === true
  );
}
