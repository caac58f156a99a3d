import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { type FakeUpstream, startFakeUpstream } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "../../test/harness";
import { createSseParser } from "../protocols";
import { createUpstreamClient } from "./upstream-client";
import { UpstreamError } from "./upstream-error";
import type { ChunkReader, UpstreamRequest } from "./upstream-types";

const SECRET = "sk-test-secret-credential-0001";

let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream({ protocol: "openai" });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => upstream.reset());

function request(
  body: Record<string, unknown>,
  overrides: Partial<UpstreamRequest> = {},
): UpstreamRequest {
  return {
    url: `${upstream.url}/chat/completions`,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${SECRET}`,
    },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
      ...body,
    }),
    timeoutMs: 2_000,
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  }
  throw new Error("expected a rejection");
}

async function drain(reader: ChunkReader): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for (let next = await reader.next(); !next.done; next = await reader.next()) {
    text += decoder.decode(next.value, { stream: true });
  }
  return text;
}

describe("createUpstreamClient", () => {
  const client = createUpstreamClient();
  afterAll(() => client.close());

  it("sends the serialised body and returns status, lower-case headers and JSON", async () => {
    upstream.script([{ headers: { "X-RateLimit-Remaining-Requests": "4999" } }]);
    const response = await client.send(request({}));
    expect(response.status).toBe(200);
    expect(response.headers["x-ratelimit-remaining-requests"]).toBe("4999");
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini",
    });
    expect(upstream.hits[0]!.body).toMatchObject({ model: "gpt-4o-mini" });
  });

  it("reuses one keep-alive socket for sequential requests to an origin", async () => {
    for (let i = 0; i < 3; i++) await (await client.send(request({}))).text();
    const ports = upstream.hits.map((hit) => hit.remotePort);
    expect(new Set(ports).size).toBe(1);
  });

  it("reuses the socket after discard() of a small error body", async () => {
    upstream.script([{ status: 429, body: { error: { message: "slow down" } } }, {}]);
    (await client.send(request({}))).discard();
    // The drained socket goes back to the pool on the next turns of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await (await client.send(request({}))).text();
    expect(upstream.hits[0]!.remotePort).toBe(upstream.hits[1]!.remotePort);
  });

  it("cuts a large unread body on discard() rather than draining it", async () => {
    // One socket: had the body been drained, the next request would reuse it.
    const single = createUpstreamClient({ maxSockets: 1 });
    const chunks = Array.from({ length: 400 }, (_, i) => `${i}:${"x".repeat(500)}`);
    upstream.script([{ stream: { chunks } }, {}]);
    try {
      (await single.send(request({ stream: true }))).discard();
      const next = await single.send(request({}));
      expect(await next.json()).toMatchObject({ object: "chat.completion" });
      expect(upstream.hits[0]!.remotePort).not.toBe(upstream.hits[1]!.remotePort);
    } finally {
      single.close();
    }
  });

  it("does not count a wait for a free socket toward firstByteTimeoutMs", async () => {
    // One socket: the second stream waits for the first to end (~400 ms), far past its 150 ms
    // first-byte wait, yet its own upstream answers at once once it has the socket.
    const single = createUpstreamClient({ maxSockets: 1 });
    upstream.script([{ stream: { chunks: ["a", "b", "c", "d", "e"], chunkDelayMs: 100 } }, {}]);
    try {
      const first = await single.send(request({ stream: true }));
      const second = single.send(request({ stream: true }, { firstByteTimeoutMs: 150 }));
      const firstText = await drain(first.chunks());
      expect(firstText).toContain("[DONE]");
      const response = await second;
      expect(response.status).toBe(200);
      expect(await drain(response.chunks())).toContain("[DONE]");
      expect(upstream.hits[1]!.at - upstream.hits[0]!.at).toBeGreaterThanOrEqual(150);
    } finally {
      single.close();
    }
  });

  it("opens a socket per concurrent call, past 64, with no cap of its own", async () => {
    // 70 streams held open together: with a cap of 64 sockets the last six would wait.
    let open = 0;
    let release: () => void = () => undefined;
    const allOpen = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.script(async () => {
      open += 1;
      if (open === 70) release();
      await allOpen;
      return {};
    });
    const responses = await Promise.all(
      Array.from({ length: 70 }, () => client.send(request({ stream: true }))),
    );
    for (const response of responses) expect(await drain(response.chunks())).toContain("[DONE]");
    expect(new Set(upstream.hits.map((hit) => hit.remotePort)).size).toBe(70);
  });

  it("lets go of idle connections once their sockets close, so a burst leaves nothing behind", async () => {
    // A server that closes every keep-alive socket as soon as it is idle.
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"ok":true}');
    });
    server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/chat/completions`;
    const own = createUpstreamClient();
    try {
      const bodies = await Promise.all(
        Array.from({ length: 5 }, async () => (await own.send(request({}, { url }))).text()),
      );
      expect(bodies).toEqual(Array(5).fill('{"ok":true}'));
      await waitFor(() => own.connectionCount() === 0, { what: "the closed sockets' clients" });
      // The next call opens a connection of its own again.
      expect(await (await own.send(request({}, { url }))).text()).toBe('{"ok":true}');
    } finally {
      own.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("keeps a whole unread body of a Connection: close answer whose socket ended", async () => {
    // The answer and the FIN arrive before anyone reads the body.
    const body = JSON.stringify({ ok: true, text: "x".repeat(2_000) });
    let closed = false;
    const server = createServer((socket) => {
      socket.once("close", () => {
        closed = true;
      });
      socket.once("data", () => {
        socket.end(
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
            `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/chat/completions`;
    try {
      const response = await client.send(request({}, { url }));
      await waitFor(() => closed, { what: "the answer's socket to close" });
      expect(await response.text()).toBe(body);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("rejects with timeout when headers do not arrive within timeoutMs, without the credential", async () => {
    upstream.script([{ delayMs: 1_000 }]);
    const error = await rejection(client.send(request({}, { timeoutMs: 100 })));
    expect(error.code).toBe("timeout");
    expect(error.message).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });

  it("rejects with network on a closed port", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => {
        const address = server.address() as { port: number };
        server.close(() => resolve(address.port));
      });
    });
    const error = await rejection(
      client.send(request({}, { url: `http://127.0.0.1:${port}/v1/chat/completions` })),
    );
    expect(error.code).toBe("network");
    expect(error.message).not.toContain(SECRET);
  });

  it("streams a large body chunk by chunk", async () => {
    const chunks = Array.from({ length: 2_000 }, (_, i) => `${i}:${"x".repeat(500)}`);
    upstream.script([{ stream: { chunks } }]);
    const response = await client.send(request({ stream: true }));
    const parser = createSseParser();
    let content = 0;
    const reader = response.chunks();
    for (let next = await reader.next(); !next.done; next = await reader.next()) {
      for (const event of parser.push(next.value)) {
        if (/"content":"\d+:/.test(event.data)) content++;
      }
    }
    expect(content).toBe(chunks.length);
  });

  it("throws timeout from the body reader after an idle gap mid-body", async () => {
    upstream.script([{ stream: { chunks: ["a", "b"], chunkDelayMs: 1_000 } }]);
    const response = await client.send(request({ stream: true }, { idleTimeoutMs: 150 }));
    const error = await rejection(drain(response.chunks()));
    expect(error.code).toBe("timeout");
  });

  it("throws network from the body reader when the upstream cuts the stream", async () => {
    upstream.script([{ stream: { chunks: ["a", "b", "c"], cutAfter: 1 } }]);
    const response = await client.send(request({ stream: true }));
    const error = await rejection(drain(response.chunks()));
    expect(error.code).toBe("network");
  });

  it("aborts before headers and mid-body", async () => {
    upstream.script([
      { delayMs: 1_000 },
      { stream: { chunks: ["a", "b", "c"], chunkDelayMs: 300 } },
    ]);
    const before = new AbortController();
    const pending = client.send(request({}, { signal: before.signal }));
    setTimeout(() => before.abort(), 50);
    expect((await rejection(pending)).code).toBe("aborted");

    const mid = new AbortController();
    const response = await client.send(request({ stream: true }, { signal: mid.signal }));
    const reading = drain(response.chunks());
    setTimeout(() => mid.abort(), 100);
    expect((await rejection(reading)).code).toBe("aborted");

    const already = new AbortController();
    already.abort();
    expect((await rejection(client.send(request({}, { signal: already.signal })))).code).toBe(
      "aborted",
    );
  });
});
