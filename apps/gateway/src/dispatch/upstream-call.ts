import type { UpstreamFailure } from "@planfirst/quota-cache";
import {
  mergeBodyFields,
  type PreparedRequest,
  type UpstreamConnector,
} from "../connectors/connector";
import { ConnectorError } from "../connectors/connector-error";
import { observeBilling } from "../connectors/observe-billing";
import type { GatewayDeps } from "../deps";
import { hubProtocolOf } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import type { UpstreamRequest, UpstreamResponse } from "../upstream";
import { withClientHeaders } from "./client-headers";
import { sentCredential } from "./sent-credential";
import { watchStreamEvents } from "./stream-events";
import type { ClientRequest } from "./types";
import { type UpstreamBody, upstreamBodyFor } from "./upstream-body";

/** An upstream request ready to send and the body it carries. */
export interface PreparedCall {
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

  constructor(private readonly deps: Pick<GatewayDeps, "connectors" | "quotaCache" | "now">) {
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
    // `/responses/compact` is a whole answer by nature; only the completion itself must stream.
    const collect =
      connector.streamOnly === true && !request.stream && request.subPath === undefined;
    const stream = request.stream || collect;
    const protocol = hubProtocolOf(connector.protocol);
    const body = upstreamBodyFor(request, protocol, target.model, stream, bodies);
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
   * Every upstream answer's headers go to the connector (Codex credits, Claude overage); a
   * connector that now knows its plan bills after the window records overage evidence `on`.
   */
  observe(target: DispatchTarget, headers: UpstreamResponse["headers"]): void {
    const connector = this.connectors.get(target.connection.config.id);
    if (!connector) return;
    connector.observeHeaders(plainHeaders(headers));
    observeBilling(this.deps, target.connection.config.id, connector);
  }

  /**
   * A stream response whose provider sends quota in-band (Codex `codex.rate_limits`): the same
   * response, its events also read into the quota cache as the stream goes. Any other stream is
   * returned as it is, unscanned.
   */
  watch(target: DispatchTarget, response: UpstreamResponse): UpstreamResponse {
    const connectionId = target.connection.config.id;
    const connector = this.connectors.get(connectionId);
    const names = connector?.streamEvents;
    if (!connector?.parseStreamEvent || !names || names.length === 0) return response;
    return watchStreamEvents(response, names, (event, data) => {
      const windows = connector.parseStreamEvent?.(event, data, this.deps.now()) ?? [];
      if (windows.length > 0) this.deps.quotaCache.observe(connectionId, windows);
      observeBilling(this.deps, connectionId, connector);
    });
  }

  /** The provider id whose quota-cache parser reads `target`'s answers (see `signalsProvider`). */
  signalsProvider(target: DispatchTarget): string {
    return this.connectors.get(target.connection.config.id)?.signalsProvider ?? target.provider;
  }

  /** The connector's own reading of an error answer, or null to leave it to quota-cache's. */
  classify(
    target: DispatchTarget,
    status: number,
    headers: UpstreamResponse["headers"],
    body: unknown,
  ): UpstreamFailure | null {
    const connector = this.connectors.get(target.connection.config.id);
    if (!connector) return null;
    return connector.classifyFailure(status, plainHeaders(headers), body, this.deps.now());
  }

  private assemble(
    target: DispatchTarget,
    request: ClientRequest,
    body: UpstreamBody,
    shape: PreparedRequest,
    collect: boolean,
  ): PreparedCall {
    const connection = target.connection;
    const protocol = body.protocol;
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
    const upstream = withClientHeaders(built, request, protocol === "anthropic-messages");
    return { upstream, body, collect };
  }
}

/**
 * Response headers as single strings: the same object when every value already is one (Node
 * gives arrays only for a few repeated headers such as `set-cookie`), else a copy with repeated
 * values joined and absent ones left out.
 */
export function plainHeaders(
  headers: UpstreamResponse["headers"],
): Readonly<Record<string, string>> {
  let flat = true;
  for (const name in headers) {
    if (typeof headers[name] !== "string") {
      flat = false;
      break;
    }
  }
  if (flat) return headers as Readonly<Record<string, string>>;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") out[name] = value;
    else if (Array.isArray(value)) out[name] = value.join(", ");
  }
  return out;
}
