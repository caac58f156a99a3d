import {
  boundSignals,
  type OverageObservation,
  type UpstreamFailure,
} from "@planfirst/quota-cache";
import {
  mergeBodyFields,
  type PreparedRequest,
  type UpstreamConnector,
} from "../connectors/connector";
import { ConnectorError } from "../connectors/connector-error";
import type { GatewayDeps } from "../deps";
import { codecFor } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import { promptCacheKeyOf } from "../routing/session-key";
import type { UpstreamRequest, UpstreamResponse } from "../upstream";
import { withClientQuery } from "./client-headers";
import { observeReading, observeResponse } from "./observe-response";
import { sentCredential } from "./sent-credential";
import { watchStreamEvents } from "./stream-events";
import type { ClientRequest } from "./types";
import { type UpstreamBody, upstreamBodyFor } from "./upstream-body";

/** An upstream request ready to send and the body it carries. */
interface PreparedCall {
  upstream: UpstreamRequest;
  body: UpstreamBody;
  /**
   * True when the client asked for a whole answer and the upstream only streams: the call asks
   * for a stream, which the dispatcher collects into one answer (`serveCollected`).
   */
  collect: boolean;
}

/**
 * Builds upstream requests through each connection's connector: the URL and auth headers come
 * from `connector.prepare`, synchronous for a static key or a token still valid (the hot path
 * stays promise-free), a promise while a token is loaded, refreshed or exchanged.
 */
export class UpstreamCalls {
  private readonly connectors: ReadonlyMap<string, UpstreamConnector>;
  /** The evidence last handed to the quota cache, per connection (see `observe`). */
  private readonly lastEvidence = new Map<string, OverageObservation>();

  constructor(
    private readonly deps: Pick<
      GatewayDeps,
      "connectors" | "quotaCache" | "cooldowns" | "now" | "metrics" | "logger"
    >,
  ) {
    this.connectors = deps.connectors ?? new Map();
  }

  /** The connector of `target`'s connection; a connection without one was disabled at start. */
  connectorOf(target: DispatchTarget): UpstreamConnector {
    const id = target.connection.config.id;
    const connector = this.connectors.get(id);
    if (!connector) {
      throw new ConnectorError({
        code: "unknown_provider",
        message: `connection ${id} has no connector`,
        connectionId: id,
      });
    }
    return connector;
  }

  /**
   * The upstream request for `target` and the body it carries (see `upstreamBodyFor`; `bodies`
   * caches one per protocol, model and stream mode for one client request). A whole request to
   * a `streamOnly` connector is prepared as a stream and marked `collect`. The client's
   * forwarded headers are applied after the connection's. Throws `ProtocolError` when the body
   * cannot be carried to the target's protocol, and `ConnectorError` (synchronously or through
   * the promise) when the connection's credential cannot be had; the dispatcher cools that
   * connection only.
   */
  request(
    target: DispatchTarget,
    request: ClientRequest,
    bodies: Map<string, UpstreamBody>,
  ): PreparedCall | Promise<PreparedCall> {
    const connector = this.connectorOf(target);
    const collect = collects(connector, request);
    const stream = request.stream || collect;
    const body = this.body(target, request, bodies);
    const shape = connector.prepare({
      model: target.model,
      stream,
      ...(request.clientHeaders ? { clientHeaders: request.clientHeaders } : {}),
    });
    if (shape instanceof Promise) {
      return shape.then((ready) => this.assemble(target, request, body, ready, collect));
    }
    return this.assemble(target, request, body, shape, collect);
  }

  /**
   * The body `target` is sent for `request` (see `upstreamBodyFor`), from `bodies` when this
   * request already made it: what the reservation before the call prices. Throws as `request`
   * does when the body cannot be carried or the connection has no connector.
   */
  body(
    target: DispatchTarget,
    request: ClientRequest,
    bodies: Map<string, UpstreamBody>,
  ): UpstreamBody {
    const connector = this.connectorOf(target);
    return upstreamBodyFor(
      request,
      connector.protocol,
      target.model,
      request.stream || collects(connector, request),
      bodies,
      promptCacheKeyFor(target, connector, request),
      connector.bodyRules,
    );
  }

  /**
   * After a 401 to `sent`: tells the connector its token was refused and prepares the call again.
   * Null when a retry would send the same credential (a static key cannot be renewed: the 401
   * stands and cools the connection). Rejects with `ConnectorError` when the refresh fails.
   */
  async afterUnauthorized(
    target: DispatchTarget,
    request: ClientRequest,
    bodies: Map<string, UpstreamBody>,
    sent: UpstreamRequest,
  ): Promise<PreparedCall | null> {
    const token = sentCredential(sent.headers);
    this.connectorOf(target).invalidateCredential(token);
    const again = await this.request(target, request, bodies);
    return sentCredential(again.upstream.headers) === token ? null : again;
  }

  /**
   * Reads one upstream answer through the connection's connector, success or failure (`body`: the
   * error body's parsed JSON or its text; absent for a success), bounds its times (quota-cache
   * `boundSignals`) and records what it says against the connection (`observeResponse`). Returns
   * the failure, if the answer was one. Evidence the connector gives again as the same object (a
   * metered key's `on`, see `meteredEvidence`) is not handed to the quota cache twice.
   */
  observe(
    target: DispatchTarget,
    status: number,
    headers: UpstreamResponse["headers"],
    body?: unknown,
  ): UpstreamFailure | undefined {
    const connectionId = target.connection.config.id;
    const observedAtMs = this.deps.now();
    const signals = boundSignals(
      this.connectorOf(target).readResponse({
        status,
        headers,
        body,
        observedAtMs,
        model: target.model,
      }),
      observedAtMs,
    );
    const evidence = signals.evidence;
    if (evidence !== undefined) {
      if (this.lastEvidence.get(connectionId) === evidence) signals.evidence = undefined;
      else this.lastEvidence.set(connectionId, evidence);
    }
    return observeResponse(this.deps, target, status, signals);
  }

  /**
   * A stream response whose provider sends quota in-band (Codex `codex.rate_limits`): the same
   * response, each such event read by the connector and recorded as the stream goes. Any other
   * stream is returned as it is, unscanned.
   */
  watch(target: DispatchTarget, response: UpstreamResponse): UpstreamResponse {
    const connectionId = target.connection.config.id;
    const connector = this.connectors.get(connectionId);
    const names = connector?.streamEvents;
    if (!connector?.readStreamEvent || !names || names.length === 0) return response;
    return watchStreamEvents(response, names, (event, data) => {
      const observedAtMs = this.deps.now();
      const reading = connector.readStreamEvent?.(event, data, observedAtMs);
      if (reading) observeReading(this.deps, connectionId, boundSignals(reading, observedAtMs));
    });
  }

  private assemble(
    target: DispatchTarget,
    request: ClientRequest,
    body: UpstreamBody,
    shape: PreparedRequest,
    collect: boolean,
  ): PreparedCall {
    const connection = target.connection;
    const built: UpstreamRequest = {
      url: request.subPath ? shape.url + request.subPath : shape.url,
      headers: shape.headers,
      body: shape.bodyFields ? mergeBodyFields(body.text, shape.bodyFields) : body.text,
      timeoutMs: connection.config.timeoutMs,
      idleTimeoutMs: connection.config.timeoutMs,
      // A stream's headers come before generation, a whole answer's only after it: only a
      // stream (collected or not) can be given up on that early without cutting off a long answer.
      firstByteTimeoutMs:
        request.stream || collect ? connection.config.firstByteTimeoutMs : undefined,
      signal: request.signal,
    };
    const upstream = withClientQuery(built, request, codecFor(body.leg.upstream).forwarding);
    return { upstream, body, collect };
  }
}

/**
 * The prompt cache key a session's request carries to `target`: derived from the session hash,
 * only to an upstream that takes one (the connection's `promptCacheKey` setting, else what its
 * connector knows of the provider). The protocol writes it only where the client sent none.
 */
function promptCacheKeyFor(
  target: DispatchTarget,
  connector: UpstreamConnector,
  request: ClientRequest,
): string | undefined {
  if (request.session === undefined) return undefined;
  const accepts = target.connection.config.promptCacheKey ?? connector.acceptsPromptCacheKey;
  return accepts === true ? promptCacheKeyOf(request.session.hash) : undefined;
}

/**
 * True when a whole request goes to a streams-only connector: it is sent as a stream and its
 * answer collected. `/responses/compact` is a whole answer by nature; only the completion
 * itself must stream.
 */
function collects(connector: UpstreamConnector, request: ClientRequest): boolean {
  return connector.streamOnly === true && !request.stream && request.subPath === undefined;
}
