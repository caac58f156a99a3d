import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";

/** A Node `request` listener. */
export type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/** Answers one request on a fast path; never rejects (it writes its own error answer). */
export type NodeRouteHandler = (
  incoming: IncomingMessage,
  outgoing: ServerResponse,
) => Promise<void>;

/**
 * The gateway's Node listener: a request whose method and path (query string aside) name a
 * fast path is answered by its handler, with no web `Request` or router in between; every
 * other request goes to the Hono app (`fetch`). The fast paths are keyed `METHOD path` and are
 * built by the app from the same route table as its Hono routes.
 */
export function createNodeListener(
  fastPaths: ReadonlyMap<string, NodeRouteHandler>,
  fetch: Parameters<typeof getRequestListener>[0],
): NodeListener {
  const fallback = getRequestListener(fetch);
  return (incoming, outgoing) => {
    const handler = fastPaths.get(fastPathKey(incoming.method ?? "", pathOf(incoming.url)));
    if (handler === undefined) {
      void fallback(incoming, outgoing);
      return;
    }
    void handler(incoming, outgoing);
  };
}

/** The key of a fast path in the map `createNodeListener` takes. */
export function fastPathKey(method: string, path: string): string {
  return `${method} ${path}`;
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return "";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
