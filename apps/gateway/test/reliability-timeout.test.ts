import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routerConnection } from "./fixtures";
import { chatBody, post, useTestBed } from "./harness";

// A keyless server that accepts requests and never answers: the connection times out once, is
// cooled, and new requests skip it while it cools instead of each waiting out its timeout.

const bed = useTestBed({ router: "openai" });
let silent: { url: string; requests: number; close(): Promise<void> };

async function startSilentServer() {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", (chunk) => {
      if (chunk.includes("\r\n\r\n")) requests += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(() => silent.close());

describe("a connection that timed out", () => {
  it("is skipped by new requests while it cools, with no wait for its timeout", async () => {
    const harness = await bed.start({
      config: {
        connections: [
          {
            id: "local",
            provider: "ollama",
            authType: "none",
            protocol: "openai",
            baseUrl: silent.url,
            models: ["qwen/qwen3-coder"],
            timeoutMs: 300,
            firstByteTimeoutMs: 300,
          },
          routerConnection(bed.fakes.router.url),
        ],
        subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
      },
      env: { ROUTER_KEY: "sk-or-v1-timeout-test-key-0001" },
    });

    const first = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(first.status).toBe(200);
    expect(first.headers.get("x-planfirst-connection")).toBe("openrouter");
    expect(first.headers.get("x-planfirst-attempts")).toBe("2");
    expect(silent.requests).toBe(1);

    for (const stream of [false, true]) {
      const next = await post(
        harness.url,
        "/v1/chat/completions",
        chatBody("auto/thrifty", { stream }),
      );
      expect(next.status).toBe(200);
      await next.text();
      expect(next.headers.get("x-planfirst-connection")).toBe("openrouter");
      expect(next.headers.get("x-planfirst-attempts")).toBe("1");
    }
    // The cooling connection was never sent another request.
    expect(silent.requests).toBe(1);
  });
});
