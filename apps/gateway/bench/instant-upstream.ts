import http from "node:http";
import { CHUNK_BASE, frame, WHOLE_COMPLETION } from "./chat-payloads";
import { listenOnLoopback } from "./listen-loopback";

const stream =
  frame({
    ...CHUNK_BASE,
    choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
  }) +
  frame({ ...CHUNK_BASE, choices: [{ index: 0, delta: { content: "ok" }, finish_reason: null }] }) +
  frame({ ...CHUNK_BASE, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
  frame({
    ...CHUNK_BASE,
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
  }) +
  "data: [DONE]\n\n";

/** An OpenAI-compatible upstream that answers instantly (no recording, no parsing beyond `stream`). */
export function startInstantUpstream(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const isStream = Buffer.concat(chunks).includes('"stream":true');
      if (isStream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(stream);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(WHOLE_COMPLETION);
      }
    });
  });
  return listenOnLoopback(server).then((port) => ({
    url: `http://127.0.0.1:${port}/v1`,
    close: () => server.close(),
  }));
}
