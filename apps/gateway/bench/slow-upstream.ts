import http from "node:http";
import http2 from "node:http2";
import { CHUNK_BASE, frame, WHOLE_COMPLETION } from "./chat-payloads";
import { listenOnLoopback } from "./listen-loopback";

/** How long and how finely a {@link startSlowUpstream} stream runs. */
export interface SlowUpstreamOptions {
  /** Content chunks per stream. */
  chunks: number;
  /** Time from the first content chunk to the last, milliseconds. */
  durationMs: number;
  /**
   * Serve HTTPS with this certificate and key (PEM), HTTP/2 or HTTP/1.1 as the client's ALPN
   * asks, as provider APIs do; plain HTTP/1.1 without.
   */
  tls?: { cert: string; key: string };
}

/** The response side both node:http and node:http2's compatibility API offer. */
type StreamResponse = Pick<http.ServerResponse, "write" | "end" | "once" | "writeHead">;

const OPENING = frame({
  ...CHUNK_BASE,
  choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
});
const CONTENT = frame({
  ...CHUNK_BASE,
  choices: [{ index: 0, delta: { content: "tok " }, finish_reason: null }],
});

/** The frames after the last content chunk: finish, usage, `[DONE]`. */
function closingFrames(chunks: number): string {
  return (
    frame({ ...CHUNK_BASE, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
    frame({
      ...CHUNK_BASE,
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: chunks, total_tokens: 12 + chunks },
    }) +
    "data: [DONE]\n\n"
  );
}

/** One stream in flight: writes its next chunk on each tick of its own interval. */
class SlowStream {
  private sent = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly response: StreamResponse,
    private readonly options: SlowUpstreamOptions,
  ) {
    const intervalMs = options.durationMs / Math.max(1, options.chunks - 1);
    response.write(OPENING);
    response.write(CONTENT);
    this.sent = 1;
    this.timer = setInterval(() => this.tick(), intervalMs);
    response.once("close", () => clearInterval(this.timer));
  }

  private tick(): void {
    if (this.sent >= this.options.chunks) {
      clearInterval(this.timer);
      this.response.end(closingFrames(this.options.chunks));
      return;
    }
    this.response.write(CONTENT);
    this.sent += 1;
  }
}

/**
 * An OpenAI-compatible upstream whose streams are slow: each answers at once with its headers,
 * the role chunk and the first content chunk, then sends the other `chunks - 1` content chunks
 * evenly over `durationMs`, then the finish and usage chunks and `data: [DONE]`. A request with
 * `max_tokens: 1` gets the same stream with no pauses (warm-up). A non-stream request gets an
 * instant completion.
 */
export function startSlowUpstream(
  options: SlowUpstreamOptions,
): Promise<{ url: string; close(): void }> {
  const whole = OPENING + CONTENT.repeat(options.chunks) + closingFrames(options.chunks);
  const answer = (req: NodeJS.ReadableStream, res: StreamResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as {
        stream?: boolean;
        max_tokens?: number;
      };
      if (body.stream !== true) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(WHOLE_COMPLETION);
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (body.max_tokens === 1) res.end(whole);
      else new SlowStream(res, options);
    });
  };
  const server = options.tls
    ? http2.createSecureServer({
        ...options.tls,
        allowHTTP1: true,
        // Node's default of 100 streams a connection, as provider APIs commonly announce.
        settings: { maxConcurrentStreams: 100 },
      })
    : http.createServer();
  server.on("request", answer);
  const scheme = options.tls ? "https" : "http";
  return listenOnLoopback(server).then((port) => ({
    url: `${scheme}://127.0.0.1:${port}/v1`,
    close: () => server.close(),
  }));
}
