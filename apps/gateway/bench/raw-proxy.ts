import http from "node:http";
import { listenOnLoopback } from "./listen-loopback";

/**
 * The floor for any Node.js proxy hop: a raw node:http pass-through with a keep-alive agent to
 * the upstream (no cap on its sockets, so a thousand open streams are a thousand sockets, as in
 * the gateway), no parsing, no routing. Streams the request body to `target` and the response
 * body back as they arrive.
 */
export function startRawProxy(target: URL): Promise<{ url: string; close(): void }> {
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 });
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        agent,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return listenOnLoopback(server).then((port) => ({
    url: `http://127.0.0.1:${port}`,
    close: () => server.close(),
  }));
}
