import type { GatewayDeps } from "../deps";
import type { AttemptRecord } from "../errors";
import type { DispatchTarget } from "../routing/build-pool";
import { LOCAL_CAPACITY } from "./connection-slots";

/**
 * One attempt at one target: it owns the attempt's record (listed in error bodies and counted
 * in receipts), the cooldown it puts on the connection and the metrics it counts, so every way
 * out of an attempt is one call.
 */
export class Attempt {
  readonly record: AttemptRecord;
  readonly connectionId: string;

  constructor(
    private readonly deps: Pick<GatewayDeps, "cooldowns" | "metrics" | "logger" | "now">,
    readonly target: DispatchTarget,
    private readonly requestId: string,
  ) {
    this.connectionId = target.connection.config.id;
    this.record = {
      connection: this.connectionId,
      model: target.model,
      rung: target.rung,
      outcome: "ok",
    };
  }

  /** Skipped without a fall-through count: the connection was cooled by an earlier attempt. */
  skip(outcome: string): void {
    this.record.outcome = outcome;
  }

  /**
   * Passed over for this request only: the connection is at this gateway's `maxConcurrent`.
   * Nothing is sent, cooled, observed or counted as a fall-through (the upstream did nothing);
   * it is counted as `passed_over` local capacity.
   */
  passOver(): void {
    this.record.outcome = LOCAL_CAPACITY;
    this.deps.metrics.countLocalCapacity(this.connectionId, "passed_over");
  }

  /** A slot of the connection passed over came free for this request: the attempt goes ahead. */
  resume(): void {
    this.record.outcome = "ok";
  }

  /**
   * Falls through to the next target: records `outcome` (and `reason`, the problem in words, when
   * the upstream named one), counts it, and with `cool` puts the connection on an `overloaded`
   * cooldown (the upstream failed, not the client). `log` is written with the request id,
   * connection, model and status: at info, or at warn with a `reason`, since only the operator
   * can fix what it names.
   */
  fallThrough(
    outcome: string,
    options: { cool?: boolean; log?: string; reason?: string | undefined } = {},
  ): void {
    this.record.outcome = outcome;
    if (options.reason) this.record.reason = options.reason;
    const { target } = this;
    if (options.cool) {
      this.deps.cooldowns.fail(
        this.connectionId,
        { kind: "overloaded", retryAt: null, resetAt: null, code: outcome },
        { model: target.model },
      );
    }
    this.deps.metrics.countFallthrough(target.rung, this.connectionId, outcome);
    if (options.log) {
      const fields = {
        requestId: this.requestId,
        connection: this.connectionId,
        model: target.model,
        ...(this.record.status === undefined ? {} : { status: this.record.status }),
        outcome,
        ...(options.reason ? { reason: options.reason } : {}),
      };
      if (options.reason) this.deps.logger.warn(fields, options.log);
      else this.deps.logger.info(fields, options.log);
    }
  }

  /**
   * The client went away during this attempt: recorded as `client_closed` so the attempt does
   * not read as served; nothing is counted or cooled (the upstream did nothing wrong).
   */
  clientClosed(): void {
    this.record.outcome = "client_closed";
  }

  /** The upstream answered with `status` (recorded in the attempt). */
  answered(status: number): void {
    this.record.status = status;
  }

  /** The request ended on this attempt with `outcome` (`ok`, `client_error`): counted once. */
  finish(outcome: "ok" | "client_error"): void {
    this.record.outcome = outcome;
    this.deps.metrics.countRequest(this.target.rung, this.connectionId, outcome, this.deps.now());
  }
}
