import type { AttemptRecord } from "../../errors";
import type { RequestRecord } from "./request-record";

/** Token counts of an answer, in the hub's convention (`inputTokens` counts cached input). */
interface TraceUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
}

/** Where a finished trace goes: the request log's write queue. */
export interface TraceSink {
  /** Takes a finished trace; synchronous and cheap (the request path calls it). */
  push(trace: RequestTrace): void;
}

const NO_ATTEMPTS: readonly AttemptRecord[] = Object.freeze([]);
const NOTHING_DROPPED: readonly string[] = Object.freeze([]);

/**
 * What one request did, filled in as it happens and written to the request log when it ends:
 * the route creates it on arrival, the dispatcher and the stream fill it in, and whoever sees
 * the end calls {@link RequestTrace.end} (the route for a whole answer or an error, the stream
 * when its last byte or its error frame has gone). Setting a field costs an assignment; the
 * record is built from it off the request path, when the log's queue is written.
 *
 * Fields the dispatch path sets when it knows them: {@link RequestTrace.sessionHash} (session
 * affinity) and {@link RequestTrace.waitedMs} (waiting for a plan), on `ClientRequest.trace`.
 */
export class RequestTrace {
  /** Session hash of the request, set by the dispatch path when it names a session. */
  sessionHash: string | null = null;
  /** Milliseconds the request waited for a plan before dispatch, set by the dispatch path. */
  waitedMs = 0;
  /** The model id the client asked for, once the body named one. */
  modelAsked: string | null = null;
  /** The client asked for a stream. */
  stream = false;
  /** The attempts of the request, in order (the dispatcher's own list, read when written). */
  attempts: readonly AttemptRecord[] = NO_ATTEMPTS;
  rung: string | null = null;
  connection: string | null = null;
  modelServed: string | null = null;
  dropped: readonly string[] = NOTHING_DROPPED;
  usage: TraceUsage | null = null;
  /** US dollars booked for the request. */
  costUsd = 0;
  ttfbMs: number | null = null;
  latencyMs = 0;
  /** HTTP status answered; set by {@link RequestTrace.end}. */
  status = 0;
  /** How the request ended; set by {@link RequestTrace.end}. */
  outcome = "";
  private readonly startedAt = performance.now();
  private sink: TraceSink | null;

  /**
   * @param atMs arrival instant, epoch milliseconds on the gateway's clock
   */
  constructor(
    sink: TraceSink | null,
    readonly requestId: string,
    readonly keyId: string,
    readonly atMs: number,
  ) {
    this.sink = sink;
  }

  /** The answer comes from this target (a whole answer, a stream, or the upstream's refusal). */
  answeredBy(rung: string, connection: string, model: string, dropped: readonly string[]): void {
    this.rung = rung;
    this.connection = connection;
    this.modelServed = model;
    this.dropped = dropped;
  }

  /**
   * The usage an answer reported (null: none) and the cost booked for it, a decimal USD string.
   * The costs add up: an attempt whose answer was booked but not served (rule B8) counts in the
   * request's cost; the usage is the last answer's.
   */
  booked(usage: TraceUsage | null, costUsd: string): void {
    this.usage = usage;
    const cost = Number(costUsd);
    if (Number.isFinite(cost) && cost > 0) this.costUsd += cost;
  }

  /** The answer's first bytes are ready for the client (a stream has committed). */
  firstByte(): void {
    if (this.ttfbMs === null) this.ttfbMs = performance.now() - this.startedAt;
  }

  /**
   * The request ended with HTTP `status` and `outcome`; the trace goes to the log. Only the
   * first call counts. A whole answer's first byte is its end unless `answered` is false (the
   * client left before anything was sent).
   */
  end(status: number, outcome: string, answered = true): void {
    const sink = this.sink;
    if (sink === null) return;
    this.sink = null;
    this.latencyMs = performance.now() - this.startedAt;
    if (this.ttfbMs === null && answered) this.ttfbMs = this.latencyMs;
    this.status = status;
    this.outcome = outcome;
    sink.push(this);
  }

  /** The record of an ended trace. Builds new objects: call it off the request path. */
  toRecord(): RequestRecord {
    const usage = this.usage;
    return {
      at: new Date(this.atMs).toISOString(),
      requestId: this.requestId,
      keyId: this.keyId,
      modelAsked: this.modelAsked,
      rung: this.rung,
      connection: this.connection,
      modelServed: this.modelServed,
      attempts: this.attempts.map((attempt) => ({
        connection: attempt.connection,
        model: attempt.model,
        rung: attempt.rung,
        outcome: attempt.outcome,
        status: attempt.status ?? null,
      })),
      status: this.status,
      outcome: this.outcome,
      inputTokens: usage ? usage.inputTokens : null,
      outputTokens: usage ? usage.outputTokens : null,
      cachedInputTokens: usage ? usage.cachedInputTokens : null,
      cacheWriteTokens: usage ? usage.cacheWriteTokens : null,
      costUsd: this.costUsd,
      latencyMs: Math.round(this.latencyMs * 10) / 10,
      ttfbMs: this.ttfbMs === null ? null : Math.round(this.ttfbMs * 10) / 10,
      sessionHash: this.sessionHash,
      dropped: [...this.dropped],
      waitedMs: this.waitedMs,
      stream: this.stream,
    };
  }
}
