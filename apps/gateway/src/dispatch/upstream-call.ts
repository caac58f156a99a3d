import { toUpstreamRequest } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import type { RoutedConnection } from "../routing/routing-table";
import { buildUpstreamRequest, type UpstreamRequest } from "../upstream";
import type { ClientRequest } from "./types";

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
   * The upstream request for `target`. `bodies` caches encoded bodies by protocol and model
   * for one client request, so a fall-through to the same shape encodes once. Throws
   * `ProtocolError` when the body cannot be carried to the target's protocol.
   */
  request(
    target: DispatchTarget,
    request: ClientRequest,
    bodies: Map<string, string>,
  ): UpstreamRequest {
    const connection = target.connection;
    const upstreamProtocol = connection.config.protocol;
    const key = `${upstreamProtocol}\u0000${target.model}`;
    let body = bodies.get(key);
    if (body === undefined) {
      body = JSON.stringify(
        toUpstreamRequest(request.protocol, upstreamProtocol, request.body, {
          model: target.model,
          stream: request.stream,
        }),
      );
      bodies.set(key, body);
    }
    const shape = this.shapeFor(connection);
    return {
      url: shape.url,
      headers: shape.headers,
      body,
      timeoutMs: connection.config.timeoutMs,
      idleTimeoutMs: connection.config.timeoutMs,
      // A stream's headers come before generation, a whole answer's only after it: only a
      // stream can be given up on that early without cutting off a long answer.
      firstByteTimeoutMs: request.stream ? connection.config.firstByteTimeoutMs : undefined,
      signal: request.signal,
    };
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
