import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { GatewayError } from "../errors";
import { requestHeader } from "../http/client-signal";
import type { GatewayEnv } from "./app-context";
import { errorReply } from "./on-error";
import { protocolOfPath } from "./routes/route-table";

/**
 * True for a WebSocket opening handshake: a `GET` whose `Upgrade` header lists `websocket`
 * (case-insensitive, among other tokens). Any other upgrade offer (`h2c`) is not one.
 */
export function isWebSocketHandshake(method: string, upgrade: string | undefined): boolean {
  if (method !== "GET" || upgrade === undefined) return false;
  return upgrade.split(",").some((token) => token.trim().toLowerCase() === "websocket");
}

/**
 * Middleware that answers every WebSocket handshake, on any path, with `426
 * websocket_unsupported` in the path's error shape and `Connection: close`, before the client key
 * is checked: nothing is dispatched, and a wrong key is reported on the HTTP request that follows.
 * The gateway serves no WebSocket transport; a 426 is what makes Codex CLI leave its Responses
 * WebSocket for HTTP at once, where any other refusal (a 404) costs it retries with backoff or
 * fails the turn (a 400). Every other request passes through, an `h2c` offer included (it is
 * served over HTTP/1.1, as a server may ignore an upgrade). Logs each refusal at debug level.
 */
export function refuseWebSocketHandshakes(logger: Logger): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    if (!isWebSocketHandshake(c.req.method, requestHeader(c, "upgrade"))) return next();
    const path = c.req.path;
    logger.debug({ path }, "websocket upgrade refused");
    const reply = errorReply(
      logger,
      new GatewayError({
        code: "websocket_unsupported",
        message: `WebSocket is not served on ${path}: send the request over HTTP`,
      }),
      protocolOfPath(path),
    );
    // The client asked for this connection to switch protocols; closing it after the refusal
    // frees the socket at once instead of leaving it idle until the keep-alive timeout.
    return new Response(reply.body, {
      status: reply.status,
      headers: { ...reply.headers, connection: "close" },
    });
  };
}
