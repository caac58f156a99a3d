import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUpstreamClient } from "../upstream";
import { watchStreamEvents } from "./stream-events";

// A real loopback server writing the stream in the pieces each test gives, read through the
// gateway's own upstream client.
let pieces: string[] = [];
let server: Server;
let url: string;
const client = createUpstreamClient();

beforeAll(async () => {
  server = createServer(async (_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const piece of pieces) {
      response.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
});
afterAll(async () => {
  client.close();
  await new Promise((resolve) => server.close(resolve));
});

async function readAll(names: readonly string[]) {
  const events: [string, unknown][] = [];
  const response = await client.send({ url, headers: {}, body: "", timeoutMs: 2_000 });
  const watched = watchStreamEvents(response, names, (event, data) => events.push([event, data]));
  const reader = watched.chunks();
  let text = "";
  const decoder = new TextDecoder();
  for (let next = await reader.next(); !next.done; next = await reader.next()) {
    text += decoder.decode(next.value, { stream: true });
  }
  return { events, text };
}

const RATE = 'event: codex.rate_limits\ndata: {"type":"codex.rate_limits","primary":1}\n\n';
const DELTA = 'event: response.output_text.delta\ndata: {"delta":"ok"}\n\n';

describe("watchStreamEvents", () => {
  it("reads a watched event split anywhere across chunks and passes every byte through unchanged", async () => {
    const whole = `${DELTA}${RATE}${DELTA}`;
    for (const cut of [1, 20, DELTA.length + 5, DELTA.length + RATE.length - 1]) {
      pieces = [whole.slice(0, cut), whole.slice(cut)];
      const { events, text } = await readAll(["codex.rate_limits"]);
      expect(text, `cut at ${cut}`).toBe(whole);
      expect(events, `cut at ${cut}`).toEqual([
        ["codex.rate_limits", { type: "codex.rate_limits", primary: 1 }],
      ]);
    }
  });

  it("reads CRLF frames, ignores other events and data that is not JSON", async () => {
    pieces = [RATE.replace(/\n/g, "\r\n"), "event: codex.rate_limits\ndata: {not json\n\n", DELTA];
    const { events } = await readAll(["codex.rate_limits"]);
    expect(events).toEqual([["codex.rate_limits", { type: "codex.rate_limits", primary: 1 }]]);
    pieces = [RATE];
    expect((await readAll(["something.else"])).events).toEqual([]);
  });
});
