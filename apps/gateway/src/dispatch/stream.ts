import { formatUsd, type Reservation } from "@planfirst/spend-ledger";
import type { GatewayDeps } from "../deps";
import type { AttemptRecord } from "../errors";
import type { ClientStreamSource, StreamReply } from "../http/reply";
import type { ClientStream } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import { type ChunkReader, UpstreamError, type UpstreamResponse } from "../upstream";
import type { SecretRedactor } from "../upstream/secret-redactor";
import type { ConnectionSlot } from "./connection-slots";
import { writeReceipt } from "./receipt";
import { redactingStream } from "./redaction";
import { pinServed } from "./session-placement";
import { settleSpend, type WorstCaseTokens } from "./settle";
import type { ClientRequest } from "./types";
import { type UpstreamBody, writeDropped } from "./upstream-body";

/** Inputs of `streamResponse`. */
interface StreamInputs {
  deps: GatewayDeps;
  request: ClientRequest;
  target: DispatchTarget;
  response: UpstreamResponse;
  /** The body sent upstream: its protocol, the fields dropped and the decoded client request. */
  prepared: UpstreamBody;
  attempts: readonly AttemptRecord[];
  reservation: Reservation | null;
  /** What the reservation was priced for, booked where the stream's usage is silent. */
  worstCase: WorstCaseTokens;
  /** Removes the connection's credentials from every client byte; none when absent. */
  redactor?: SecretRedactor;
  /** The connection slot a committed stream holds until it ends; none when absent. */
  slot?: ConnectionSlot;
}

/**
 * A committed stream, or why it ended before its first byte reached the client. Either way the
 * reservation is the stream's: a committed one settles it when it ends, one that ended before
 * has settled it (rule B8). `clientGone` means the client hung up: no cooldown, no fall-through.
 */
type StreamOutcome =
  | { ok: true; reply: StreamReply }
  | { ok: false; reason: string; clientGone?: boolean };

const END = { text: "", done: true } as const;

/**
 * Streams an upstream SSE response to the client: byte for byte through the frame relay when the
 * upstream speaks the client's protocol, through the hub's stream translator when not. The
 * response is committed only once the stream has produced client bytes; a failure before that returns
 * `{ ok: false }` so the dispatcher falls through to the next target. After the first byte, an
 * upstream failure or cut ends the stream with its explicit error frame, never a clean
 * end. A client that goes away aborts the upstream. Spend is settled, and the connection's slot
 * (`slot`) given back, exactly once either way.
 * Every client byte, relayed or translated, passes `redactor` (a secret split across upstream
 * chunks included); a stream with no secret in it is unchanged.
 */
export async function streamResponse(inputs: StreamInputs): Promise<StreamOutcome> {
  const { deps, request, target, response } = inputs;
  // The leg decides: the byte-faithful frame relay, or the hub's translator.
  const inner = inputs.prepared.leg.openStream(
    inputs.prepared,
    request.body,
    target.model,
    deps.now,
  );
  const relay = inputs.redactor ? redactingStream(inner, inputs.redactor) : inner;
  const iterator = response.chunks();

  // Read until the stream has something for the client (or the upstream fails first).
  let first = "";
  let upstreamDone = false;
  try {
    while (first === "") {
      const next = await iterator.next();
      if (next.done) {
        first += relay.flush();
        upstreamDone = true;
        break;
      }
      first += relay.push(next.value);
      if (relay.upstreamError()) break;
    }
  } catch (error) {
    response.discard();
    // The upstream answered 2xx: book what it billed, whatever comes next (rule B8).
    await bookEarlyEnd(inputs, relay);
    if (clientWentAway(request, error)) {
      // Not the connection's fault: cool nothing.
      deps.metrics.countRequest(
        target.rung,
        target.connection.config.id,
        "client_closed",
        deps.now(),
      );
      return { ok: false, reason: "client_closed", clientGone: true };
    }
    return { ok: false, reason: "stream_failed_before_first_byte" };
  }
  if (relay.upstreamError() || first === "") {
    response.discard();
    await bookEarlyEnd(inputs, relay);
    return {
      ok: false,
      reason: relay.upstreamError() ? "stream_error_before_first_byte" : "empty_stream",
    };
  }

  const headers = streamHeaders();
  // Headers leave before the usage is known: on a paid rung the cost header carries the amount
  // reserved (an upper bound) and says so; the ledger books the real cost when the stream ends.
  writeReceipt(headers, {
    rung: target.rung,
    connection: target.connection.config.id,
    model: target.model,
    attempts: inputs.attempts.length,
    costUsd: inputs.reservation ? formatUsd(inputs.reservation.amountMicroUsd) : "0",
  });
  if (inputs.reservation) headers["x-planfirst-cost-basis"] = "reserved-upper-bound";
  writeDropped(headers, inputs.prepared.dropped);
  const trace = request.trace;
  if (trace) {
    trace.answeredBy(
      target.rung,
      target.connection.config.id,
      target.model,
      inputs.prepared.dropped,
    );
    trace.firstByte();
  }
  const source = new UpstreamStreamSource(inputs, relay, iterator, first, upstreamDone);
  return { ok: true, reply: { kind: "stream", status: 200, headers, source } };
}

/** The response headers every client stream starts with, before its receipt. */
export function streamHeaders(): Record<string, string> {
  return {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  };
}

/** The client side of a committed stream: one object per stream, no closures. */
class UpstreamStreamSource implements ClientStreamSource {
  private settled = false;

  constructor(
    private readonly inputs: StreamInputs,
    private readonly relay: ClientStream,
    private readonly iterator: ChunkReader,
    readonly first: string,
    private upstreamDone: boolean,
  ) {}

  async next(): Promise<{ text: string; done: boolean }> {
    if (this.settled) return END;
    if (this.upstreamDone) return this.closeEnded("");
    const relay = this.relay;
    try {
      const next = await this.iterator.next();
      if (this.settled) return END;
      if (next.done) return this.closeEnded(relay.flush());
      const out = relay.push(next.value);
      const upstreamError = relay.upstreamError();
      if (upstreamError) {
        // The stream already carries the upstream's error frame; fail() adds one only if not.
        const tail = relay.fail({
          type: upstreamError.type,
          code: "upstream_stream_error",
          message: upstreamError.message,
        });
        this.inputs.response.discard();
        void this.finish("stream_error");
        return { text: out + tail, done: true };
      }
      return { text: out, done: false };
    } catch (error) {
      if (this.settled) return END;
      const timedOut = (error as { code?: string } | null)?.code === "timeout";
      const tail = relay.fail({
        type: "api_error",
        code: timedOut ? "upstream_timeout" : "upstream_stream_cut",
        message: timedOut
          ? "the upstream stopped sending before the stream was complete"
          : "the upstream stream ended before it was complete",
      });
      void this.finish("stream_cut");
      return { text: tail, done: true };
    }
  }

  cancel(): void {
    if (this.settled) return;
    // The client went away: stop the upstream and book it (rule B8: its usage is not final).
    this.inputs.response.discard();
    void this.finish("client_closed");
  }

  /**
   * The upstream body ended and `out` is the stream's flushed tail: the clean end when the
   * upstream finished properly, else the explicit error frame (`flush()` wrote either).
   */
  private closeEnded(out: string): { text: string; done: boolean } {
    const relay = this.relay;
    void this.finish(relay.finished() && relay.upstreamError() === null ? "ok" : "stream_cut");
    return { text: out, done: true };
  }

  private finish(outcome: string): Promise<string> {
    if (this.settled) return Promise.resolve("0");
    this.settled = true;
    // The upstream is done with (ended, failed or cut): the connection's slot is free again.
    this.inputs.slot?.end();
    const { deps, target, request } = this.inputs;
    deps.metrics.countRequest(target.rung, target.connection.config.id, outcome, deps.now());
    // Only a stream that ended cleanly pins its session: a cut or failed one answered nothing.
    if (outcome === "ok") pinServed(deps, request, target);
    const settled = settle(this.inputs, this.relay);
    const trace = request.trace;
    if (trace) {
      const usage = this.relay.usage();
      // The stream's record is complete only now: its usage, its cost and how it ended.
      void settled.then((costUsd) => {
        trace.booked(usage, costUsd);
        trace.end(200, outcome === "ok" ? "served" : outcome);
      });
    }
    return settled;
  }
}

/** Settles a stream that ended before its first client byte and adds its cost to the record. */
async function bookEarlyEnd(inputs: StreamInputs, stream: ClientStream): Promise<void> {
  const costUsd = await settle(inputs, stream);
  inputs.request.trace?.booked(stream.usage(), costUsd);
}

/**
 * Settles the stream's spend from the usage the stream saw, final only when the upstream ended
 * it properly (see `settleSpend`); never rejects.
 */
function settle(inputs: StreamInputs, stream: ClientStream): Promise<string> {
  if (!inputs.reservation) return Promise.resolve("0");
  const final = stream.finished() && stream.upstreamError() === null;
  return settleSpend(
    inputs.deps,
    inputs.target,
    inputs.reservation,
    { usage: stream.usage(), final },
    inputs.request,
    inputs.worstCase,
  ).catch(() => "0");
}

function clientWentAway(request: ClientRequest, error: unknown): boolean {
  return (
    request.signal?.aborted === true ||
    (UpstreamError.isInstance(error) && error.code === "aborted")
  );
}
