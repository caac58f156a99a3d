import { hubProtocolOf } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import type { RoutedConnection } from "../routing/routing-table";
import { buildUpstreamRequest, type UpstreamRequest } from "../upstream";
import { withClientHeaders } from "./client-headers";
import type { ClientRequest } from "./types";
import { type UpstreamBody, upstreamBodyFor } from "./upstream-body";

/** The part of a connection's upstream request that never changes between requests. */
interface RequestShape {
  readonly credential: string | null;
  readonly url: string;
  readonly headers: Record<string, string>;
}

/**
 * Builds upstream requests. URL and headers of each connection are built once (they depend
 * only on its config and credential, rebuilt when the credential changes; the upstream client
 * copies headers before sending).
 */
export class UpstreamCalls {
  private readonly shapes = new WeakMap<RoutedConnection, RequestShape>();

  /**
   * The upstream request for `target` and the body it carries (see `upstreamBodyFor`; `bodies`
   * caches one per protocol and model for one client request). The client's forwarded headers
   * are applied after the connection's. Throws `ProtocolError` when the body cannot be carried
   * to the target's protocol.
   */
  request(
    target: DispatchTarget,
    request: ClientRequest,
    bodies: Map<string, UpstreamBody>,
  ): { upstream: UpstreamRequest; body: UpstreamBody } {
    const connection = target.connection;
    const protocol = hubProtocolOf(connection.config.protocol);
    const body = upstreamBodyFor(request, protocol, target.model, bodies);
    const shape = this.shapeFor(connection);
    const built: UpstreamRequest = {
      url: request.subPath ? shape.url + request.subPath : shape.url,
      headers: shape.headers,
      body: body.text,
      timeoutMs: connection.config.timeoutMs,
      idleTimeoutMs: connection.config.timeoutMs,
      // A stream's headers come before generation, a whole answer's only after it: only a
      // stream can be given up on that early without cutting off a long answer.
      firstByteTimeoutMs: request.stream ? connection.config.firstByteTimeoutMs : undefined,
      signal: request.signal,
    };
    const upstream = withClientHeaders(built, request, protocol === "anthropic-messages");
    return { upstream, body };
  }

  private shapeFor(connection: RoutedConnection): RequestShape {
    let shape = this.shapes.get(connection);
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
      this.shapes.set(connection, shape);
    }
    return shape;
  }
}
