import { request } from "node:http";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { useTestBed } from "./harness";

// The gateway serves no WebSocket transport. A client that offers one (Codex CLI's Responses
// WebSocket) is told so with a 426 at once, the answer on which it retries over HTTP, instead of
// a 404 it retries with backoff.

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({
    config: standardConfig(fakes, { server: { apiKeys: ["env:CLIENT_KEY"] } }),
    env: TEST_ENV,
  }),
});
const auth = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` };

/** What a refused WebSocket handshake got back. */
interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Opens a WebSocket with the `ws` client; resolves with the HTTP answer that refused it. */
function refusedHandshake(path: string, headers: Record<string, string> = {}): Promise<Refusal> {
  const url = `${bed.harness.url.replace(/^http/, "ws")}${path}`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => {
      socket.close();
      reject(new Error(`the gateway accepted a WebSocket on ${path}`));
    });
    socket.once("error", reject);
    socket.once("unexpected-response", (_request, response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.once("end", () => {
        try {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: JSON.parse(text),
          });
        } catch (error) {
          reject(error);
        }
      });
    });
  });
}

describe("a WebSocket upgrade", () => {
  it("on /v1/responses gets 426 websocket_unsupported in OpenAI's shape and closes the connection, reaching no upstream", async () => {
    const logsBefore = bed.harness.logs.length;
    const hitsBefore = Object.values(bed.fakes).map((fake) => fake.completionHits().length);
    const refusal = await refusedHandshake("/v1/responses", {
      ...auth,
      "openai-beta": "responses_websockets=2026-02-06",
    });
    expect(refusal.status).toBe(426);
    expect(refusal.headers.connection).toBe("close");
    expect(refusal.headers["content-type"]).toMatch(/^application\/json/);
    expect(refusal.body).toMatchObject({
      error: { type: "invalid_request_error", code: "websocket_unsupported", param: null },
    });
    const hitsAfter = Object.values(bed.fakes).map((fake) => fake.completionHits().length);
    expect(hitsAfter).toEqual(hitsBefore);
    const refusedLines = bed.harness.logs
      .slice(logsBefore)
      .filter((line) => line.includes("websocket upgrade refused"));
    expect(refusedLines).toHaveLength(1);
    expect(JSON.parse(refusedLines[0]!)).toMatchObject({ path: "/v1/responses" });
  });

  it("on /v1/messages gets the 426 in Anthropic's shape", async () => {
    const refusal = await refusedHandshake("/v1/messages", auth);
    expect(refusal.status).toBe(426);
    expect(refusal.body).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", code: "websocket_unsupported" },
    });
  });

  it("without a client key still gets the 426, not a 401: the key is checked on the HTTP retry", async () => {
    const refusal = await refusedHandshake("/v1/responses");
    expect(refusal.status).toBe(426);
    expect(refusal.body).toMatchObject({ error: { code: "websocket_unsupported" } });
  });

  it("an h2c upgrade offer is ignored and the request served over HTTP/1.1", async () => {
    const hitsBefore = bed.fakes.router.completionHits().length;
    const payload = JSON.stringify({
      model: "qwen/qwen3-coder",
      messages: [{ role: "user", content: "hi" }],
    });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL("/v1/chat/completions", bed.harness.url);
      const outgoing = request(url, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/json",
          connection: "Upgrade, HTTP2-Settings",
          upgrade: "h2c",
          "http2-settings": "AAMAAABkAAQCAAAAAAIAAAAA",
        },
      });
      outgoing.once("upgrade", () => reject(new Error("the gateway switched protocols")));
      outgoing.once("error", reject);
      outgoing.once("response", (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.once("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      outgoing.end(payload);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ object: "chat.completion" });
    expect(bed.fakes.router.completionHits()).toHaveLength(hitsBefore + 1);
  });
});
