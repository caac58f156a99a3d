import http from "node:http";
import type http2 from "node:http2";
import { LISTEN_BACKLOG } from "../src/server";

/**
 * Listens on a free port of 127.0.0.1 and resolves with it, with the gateway's accept queue, so
 * a burst of connections meets the same queue on every server compared. An HTTP/1 server keeps
 * idle connections for 60 s, so the load generator's connections stay open between cases.
 */
export function listenOnLoopback(server: http.Server | http2.Http2SecureServer): Promise<number> {
  if (server instanceof http.Server) server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen({ port: 0, host: "127.0.0.1", backlog: LISTEN_BACKLOG }, () =>
      resolve((server.address() as { port: number }).port),
    );
  });
}
