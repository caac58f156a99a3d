import type { UpstreamFailure } from "@planfirst/quota-cache";
import { parseResponseSignals } from "@planfirst/quota-cache";
import { estimateWorstCaseCost, microToUsd, type Reservation } from "@planfirst/spend-ledger";
import type { LadderOptions } from "@planfirst/subscription-ladder";
import type { ClientIdentity } from "../routing/client-identity";
import type { GatewayDeps } from "../deps";
import { type AttemptRecord, GatewayError } from "../errors";
import { errorBody, upstreamErrorMessage, upstreamErrorType } from "../http/error-body";
import type { GatewayReply } from "../http/reply";
import {
  extractUsage,
  type NormalizedUsage,
  ProtocolError,
  toClientResponse,
  toUpstreamRequest,
  type WireProtocol,
} from "../protocols";
import {
  type AbortSignalLike,
  buildUpstreamRequest,
  UpstreamError,
  type UpstreamRequest,
  type UpstreamResponse,
} from "../upstream";
import type { DispatchTarget, PoolLiveState } from "../routing/build-pool";
import { emptyPoolError } from "./empty-pool";
import { createPoolCache } from "../routing/pool-cache";
import { type Receipt, writeReceipt } from "./receipt";
import type { RoutedConnection, RoutingTable } from "../routing/routing-table";
import { settleSpend } from "./settle";
import { streamResponse } from "./stream";

/** One client request as the routes hand it to the dispatcher. */
export interface ClientRequest {
  /** The API the client speaks (the route it called). */
  protocol: WireProtocol;
  /** The parsed JSON body (parsed once). */
  body: Record<string, unknown>;
  modelId: string;
  stream: boolean;
  client: ClientIdentity;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignalLike | undefined;
}

/** Everything built once per app that the dispatcher reads. */
export interface Dispatcher {
  readonly table: RoutingTable;
  readonly ladderOptions: LadderOptions;
  readonly live: PoolLiveState;
  /** Routes one request: steps 2–9 of the request flow. Failures reject with `GatewayError`. */
  dispatch(request: ClientRequest): Promise<GatewayReply>;
}

const RETURN_TO_CLIENT = new Set([400, 404, 405, 409, 413, 415, 422]);
const JSON_HEADERS = "application/json";

/** Paid rungs: the ones gated by a budget and reserved against before dispatch (§7). */
export function isPaidRung(rung: string): boolean {
  return rung === "cheap" || rung === "premium";
}

/** Creates the dispatcher over injected deps and the static routing table. */
export function createDispatcher(deps: GatewayDeps, table: RoutingTable): Dispatcher {
  const { quotaCache, cooldowns, ledger, upstream, now, logger, metrics } = deps;
  const ladderOptions: LadderOptions = {
    ...table.ladderBase,
    resolveQuotaState: (provider, connectionId, model) =>
      connectionId === null ? undefined : quotaCache.get(provider, connectionId, model),
    resolveRungSpendUsd: (rung) => ledger.rungSpendUsd(rung),
    now,
  } as LadderOptions;
  const live: PoolLiveState = {
    quotaState: (provider, connectionId, model) => quotaCache.get(provider, connectionId, model),
    isCoolingDown: (connectionId, model) => cooldowns.isCoolingDown(connectionId, model),
  };

  const pools = createPoolCache({
    table,
    live,
    ladderOptions,
    now,
    maxStateAgeMs: deps.config.subscriptionLadder.maxStateAgeMs,
  });

  // URL and headers of each connection's upstream request, built once: they depend only on the
  // connection's config and credential, and the upstream client copies headers before sending.
  const requestShapes = new WeakMap<RoutedConnection, RequestShape>();
  function requestShapeFor(connection: RoutedConnection): RequestShape {
    let shape = requestShapes.get(connection);
    if (!shape || shape.credential !== connection.credential) {
      const built = buildUpstreamRequest(
        {
          baseUrl: connection.config.baseUrl,
          protocol: connection.config.protocol,
          authType: connection.config.authType,
          credential: connection.credential,
          headers: connection.config.headers,
        },
        "",
        { timeoutMs: connection.config.timeoutMs },
      );
      shape = { credential: connection.credential, url: built.url, headers: built.headers };
      requestShapes.set(connection, shape);
    }
    return shape;
  }

  /** Gives a reservation back when its target served nothing. */
  function release(reservation: Reservation | null): void {
    if (reservation) void ledger.release(reservation).catch(ignoreError);
  }

  /** Passive quota observation: every response's signals go to the connection that sent it. */
  function recordSignals(
    target: DispatchTarget,
    status: number,
    headers: UpstreamResponse["headers"],
    body: unknown,
  ): UpstreamFailure | undefined {
    const connectionId = target.connection.config.id;
    const signals = parseResponseSignals(target.provider, {
      status,
      headers,
      body,
      observedAtMs: now(),
      model: target.model,
    });
    if (signals.windows.length > 0) quotaCache.observe(connectionId, signals.windows);
    let failure = signals.failure;
    // A rejected request (400, 404, 413, 422, …) says nothing about the connection: no cooldown.
    if (!failure && status >= 400 && !RETURN_TO_CLIENT.has(status)) {
      failure = fallbackFailure(status);
    }
    if (failure) {
      quotaCache.observeFailure(connectionId, failure, { model: target.model });
      cooldowns.fail(connectionId, failure, { model: target.model });
    }
    return failure;
  }

  async function dispatch(request: ClientRequest): Promise<GatewayReply> {
    const resolution = table.resolve(request.modelId);
    if (!resolution.ok) {
      throw new GatewayError({
        message: resolution.message,
        code: resolution.reason === "unknown_category" ? "unknown_category" : "model_not_found",
        details: resolution.reason === "unknown_category" ? { categories: table.categories } : {},
      });
    }
    const targets = pools.targetsFor(resolution, request.client);
    if (targets.length === 0) {
      throw emptyPoolError(deps, table, ladderOptions, resolution, request);
    }

    const attempts: AttemptRecord[] = [];
    let lastRateLimit: { status: number; retryAt: string | null } | null = null;
    // Upstream bodies by protocol and model, so a fall-through to the same shape reuses one.
    let bodies: Map<string, string> | undefined;

    for (const target of targets) {
      const connectionId = target.connection.config.id;
      const attempt: AttemptRecord = {
        connection: connectionId,
        model: target.model,
        rung: target.rung,
        outcome: "ok",
      };
      attempts.push(attempt);
      if (cooldowns.isCoolingDown(connectionId, target.model)) {
        // Cooled by an earlier attempt of this same request.
        attempt.outcome = "cooling_down";
        continue;
      }

      let reservation: Reservation | null = null;
      let estimatedInputTokens = 0;
      if (isPaidRung(target.rung)) {
        const price = target.group.price;
        if (!price) {
          if (ledger.budgetUsd(target.rung) !== undefined) {
            attempt.outcome = "unpriced_on_budgeted_rung";
            metrics.countFallthrough(target.rung, connectionId, attempt.outcome);
            continue;
          }
        } else {
          const estimate = estimateWorstCaseCost({
            body: request.body,
            protocol: request.protocol,
            price,
          });
          estimatedInputTokens = estimate.inputTokens;
          const reserved = await ledger.reserve({
            rung: target.rung,
            connectionId,
            model: target.model,
            maxCostUsd: microToUsd(estimate.costMicroUsd),
            requestId: request.requestId,
          });
          if ("refused" in reserved) {
            attempt.outcome = "budget_refused";
            metrics.countFallthrough(target.rung, connectionId, attempt.outcome);
            continue;
          }
          reservation = reserved;
        }
      }
      const connection = target.connection;
      const upstreamProtocol = connection.config.protocol;
      let upstreamBody = bodies?.get(`${upstreamProtocol}\u0000${target.model}`);
      if (upstreamBody === undefined) {
        try {
          upstreamBody = JSON.stringify(
            toUpstreamRequest(request.protocol, upstreamProtocol, request.body, {
              model: target.model,
              stream: request.stream,
            }),
          );
        } catch (error) {
          release(reservation);
          // A ProtocolError is a GatewayError: it reaches onError with its field and allowed values.
          throw error;
        }
        bodies ??= new Map();
        bodies.set(`${upstreamProtocol}\u0000${target.model}`, upstreamBody);
      }

      const shape = requestShapeFor(connection);
      const upstreamRequest: UpstreamRequest = {
        url: shape.url,
        headers: shape.headers,
        body: upstreamBody,
        timeoutMs: connection.config.timeoutMs,
        idleTimeoutMs: connection.config.timeoutMs,
        signal: request.signal,
      };

      const startedAt = performance.now();
      let response: UpstreamResponse;
      try {
        response = await upstream.send(upstreamRequest);
      } catch (error) {
        release(reservation);
        if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
        const code = UpstreamError.isInstance(error) ? error.code : "network";
        attempt.outcome = code;
        cooldowns.fail(
          connectionId,
          { kind: "overloaded", retryAt: null, resetAt: null, code },
          { model: target.model },
        );
        metrics.countFallthrough(target.rung, connectionId, code);
        logger.info(
          {
            requestId: request.requestId,
            connection: connectionId,
            model: target.model,
            outcome: code,
          },
          "upstream unreachable, falling through",
        );
        continue;
      }
      metrics.observeUpstreamLatency(connectionId, performance.now() - startedAt);
      attempt.status = response.status;

      if (response.status >= 300) {
        const text = await response.text().catch(() => "");
        const parsed = parseJsonSafe(text);
        const failure = recordSignals(target, response.status, response.headers, parsed);
        release(reservation);
        if (RETURN_TO_CLIENT.has(response.status)) {
          attempt.outcome = "client_error";
          metrics.countRequest(target.rung, connectionId, "client_error", now());
          const headers: Record<string, string> = { "content-type": JSON_HEADERS };
          writeReceipt(headers, receiptOf(target, attempts.length, "0"));
          const message = upstreamErrorMessage(parsed, `upstream answered ${response.status}`);
          return {
            kind: "body",
            status: response.status,
            headers,
            body: JSON.stringify(
              errorBody(request.protocol, {
                message,
                type: upstreamErrorType(parsed) ?? "invalid_request_error",
                code: "upstream_rejected_request",
              }),
            ),
          };
        }
        attempt.outcome = failure?.kind ?? "upstream_error";
        if (response.status === 429) {
          lastRateLimit = { status: 429, retryAt: failure?.retryAt ?? failure?.resetAt ?? null };
        }
        metrics.countFallthrough(target.rung, connectionId, attempt.outcome);
        logger.info(
          {
            requestId: request.requestId,
            connection: connectionId,
            model: target.model,
            status: response.status,
            outcome: attempt.outcome,
          },
          "upstream refused, falling through",
        );
        continue;
      }

      recordSignals(target, response.status, response.headers, undefined);
      cooldowns.succeed(connectionId, { model: target.model });

      if (request.stream) {
        const streamed = await streamResponse({
          deps,
          request,
          target,
          response,
          attempts,
          reservation,
          estimatedInputTokens,
        });
        if (streamed.ok) return streamed.reply;
        if (streamed.clientGone) throw clientGone(null);
        // Nothing reached the client yet: fall through to the next target.
        release(reservation);
        attempt.outcome = streamed.reason;
        cooldowns.fail(
          connectionId,
          { kind: "overloaded", retryAt: null, resetAt: null, code: streamed.reason },
          { model: target.model },
        );
        metrics.countFallthrough(target.rung, connectionId, streamed.reason);
        continue;
      }

      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        release(reservation);
        if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
        attempt.outcome = "body_failed";
        metrics.countFallthrough(target.rung, connectionId, attempt.outcome);
        continue;
      }
      const parsed = parseJsonSafe(text);
      if (parsed === undefined) {
        release(reservation);
        attempt.outcome = "invalid_body";
        metrics.countFallthrough(target.rung, connectionId, attempt.outcome);
        continue;
      }
      let clientText: string;
      let usage: NormalizedUsage | null;
      if (upstreamProtocol === request.protocol) {
        clientText = text;
        usage = extractUsage(upstreamProtocol, parsed);
      } else {
        try {
          const translated = toClientResponse(upstreamProtocol, request.protocol, parsed, {
            model: target.model,
            nowMs: now(),
          });
          clientText = JSON.stringify(translated.body);
          usage = translated.usage;
        } catch {
          release(reservation);
          attempt.outcome = "invalid_body";
          metrics.countFallthrough(target.rung, connectionId, attempt.outcome);
          continue;
        }
      }
      const costUsd = reservation
        ? await settleSpend(deps, target, reservation, usage, request, estimatedInputTokens)
        : "0";
      metrics.countRequest(target.rung, connectionId, "ok", now());
      const headers: Record<string, string> = { "content-type": JSON_HEADERS };
      writeReceipt(headers, receiptOf(target, attempts.length, costUsd));
      return { kind: "body", status: 200, headers, body: clientText };
    }

    // Every target failed.
    if (resolution.grouping === "subscription") {
      throw emptyPoolError(deps, table, ladderOptions, resolution, request, attempts);
    }
    metrics.countRequest("none", "none", "all_failed", now());
    if (lastRateLimit) {
      throw new GatewayError({
        message: "every target is rate-limited",
        code: "all_targets_rate_limited",
        details: { attempts },
        retryAfterSec: secondsUntil(lastRateLimit.retryAt, now()),
      });
    }
    throw new GatewayError({
      message: "every target failed",
      code: "all_targets_failed",
      details: { attempts },
    });
  }

  return { table, ladderOptions, live, dispatch };
}

/** The receipt of a response served by `target`. */
export function receiptOf(target: DispatchTarget, attempts: number, costUsd: string): Receipt {
  return {
    rung: target.rung,
    connection: target.connection.config.id,
    model: target.model,
    attempts,
    costUsd,
  };
}

/** The part of a connection's upstream request that never changes between requests. */
interface RequestShape {
  readonly credential: string | null;
  readonly url: string;
  readonly headers: Record<string, string>;
}

function ignoreError(): void {}

function fallbackFailure(status: number): UpstreamFailure {
  if (status === 401 || status === 403) {
    return { kind: "auth_invalid", retryAt: null, resetAt: null, code: String(status) };
  }
  if (status === 402) {
    return { kind: "credits_exhausted", retryAt: null, resetAt: null, code: String(status) };
  }
  if (status === 429) {
    return { kind: "rate_limited", retryAt: null, resetAt: null, code: String(status) };
  }
  return { kind: "overloaded", retryAt: null, resetAt: null, code: String(status) };
}

function parseJsonSafe(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whole seconds from `nowMs` until an ISO instant, at least 1; undefined when unknown or past. */
export function secondsUntil(iso: string | null | undefined, nowMs: number): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || ms <= nowMs) return undefined;
  return Math.max(1, Math.ceil((ms - nowMs) / 1000));
}

function clientGone(cause: unknown): GatewayError {
  return new GatewayError({
    message: "the client closed the connection",
    code: "client_closed_request",
    cause,
  });
}
