import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createUpstreamClient, type UpstreamClient, UpstreamError } from "../src/upstream";

/** What the raw server does with the n-th request (1-based) it reads on a connection. */
type Behaviour = (
  requestOnConnection: number,
  connection: number,
) => "answer" | "answer-close" | "destroy" | "hang";

/** A raw TCP server speaking just enough HTTP/1.1 to count every request it fully read. */
interface RawUpstream {
  url: string;
  /** Requests read in full (headers and body), in order: method and path. */
  hits: string[];
  connections: number;
  /** Resolves once `count` requests were read in full. */
  hitsReached(count: number): Promise<void>;
  /** Resolves once `count` connections have closed. */
  closesReached(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startRawUpstream(behaviour: Behaviour): Promise<RawUpstream> {
  const hits: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let closes = 0;
  // Waiters on the counts: woken on every change, each checks its own condition.
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const until = (reached: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!reached()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      closes += 1;
      wake();
    });
    socket.on("error", () => {});
    const connection = ++connections;
    let seen = 0;
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        buffer = buffer.subarray(end + 4 + length);
        const [method, path] = head.split(" ");
        hits.push(`${method} ${path}`);
        seen += 1;
        wake();
        const action = behaviour(seen, connection);
        if (action === "destroy") {
          socket.destroy();
          return;
        }
        if (action === "hang") return;
        const body = '{"ok":true}';
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`,
        );
        // Closes the connection while the client holds it as idle and reusable.
        if (action === "answer-close") socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    get connections() {
      return connections;
    },
    hitsReached: (count) => until(() => hits.length >= count),
    closesReached: (count) => until(() => closes >= count),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const clients: UpstreamClient[] = [];
const servers: RawUpstream[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) await server.close();
});

describe("upstream client", () => {
  function client(): UpstreamClient {
    const created = createUpstreamClient({ maxSockets: 1 });
    clients.push(created);
    return created;
  }

  async function upstream(behaviour: Behaviour): Promise<RawUpstream> {
    const started = await startRawUpstream(behaviour);
    servers.push(started);
    return started;
  }

  const POST = (url: string) => ({
    url: `${url}/v1/chat/completions`,
    headers: { "content-type": "application/json" },
    body: '{"model":"m","messages":[]}',
    timeoutMs: 10_000,
  });

  describe("no duplicate paid sends", () => {
    it("does not re-send a POST the upstream read before it reset a reused socket: one hit", async () => {
      // The second request on the first connection is read in full, then the socket is destroyed:
      // the upstream may have billed it, so it must not be sent again on a new socket.
      const raw = await upstream((n, connection) =>
        connection === 1 && n === 2 ? "destroy" : "answer",
      );
      const http = client();
      const first = await http.send(POST(raw.url));
      expect(first.status).toBe(200);
      await first.text();
      const failure = await http.send(POST(raw.url)).catch((error: unknown) => error);
      expect(UpstreamError.isInstance(failure)).toBe(true);
      expect((failure as UpstreamError).code).toBe("network");
      expect(raw.hits).toEqual(["POST /v1/chat/completions", "POST /v1/chat/completions"]);
      expect(raw.connections).toBe(1);
    });

    it("still re-sends an idempotent GET on a fresh socket after the same reset", async () => {
      const raw = await upstream((n, connection) =>
        connection === 1 && n === 2 ? "destroy" : "answer",
      );
      const http = client();
      const get = { ...POST(raw.url), url: `${raw.url}/usage`, method: "GET" as const, body: "" };
      await (await http.send(get)).text();
      const second = await http.send(get);
      expect(second.status).toBe(200);
      expect(await second.json()).toEqual({ ok: true });
      expect(raw.hits).toEqual(["GET /usage", "GET /usage", "GET /usage"]);
      expect(raw.connections).toBe(2);
    });
  });

  describe("a socket the upstream closed or a call given up", () => {
    it("sends a POST once, on a new socket, after the upstream closed the idle one", async () => {
      const raw = await upstream((n, connection) =>
        connection === 1 && n === 1 ? "answer-close" : "answer",
      );
      const http = client();
      await (await http.send(POST(raw.url))).text();
      await raw.closesReached(1);
      const second = await http.send(POST(raw.url));
      expect(await second.json()).toEqual({ ok: true });
      expect(raw.hits).toEqual(["POST /v1/chat/completions", "POST /v1/chat/completions"]);
      expect(raw.connections).toBe(2);
    });

    it("never sends a POST aborted while it waited for the only socket", async () => {
      const raw = await upstream((_n, connection) => (connection === 1 ? "hang" : "answer"));
      const http = client();
      const first = new AbortController();
      const hanging = http.send({ ...POST(raw.url), signal: first.signal });
      await raw.hitsReached(1);
      const queued = new AbortController();
      const waiting = http.send({
        ...POST(raw.url),
        url: `${raw.url}/v1/queued`,
        signal: queued.signal,
      });
      queued.abort();
      const failure = await waiting.catch((error: unknown) => error);
      expect((failure as UpstreamError).code).toBe("aborted");
      first.abort();
      expect(((await hanging.catch((error: unknown) => error)) as UpstreamError).code).toBe(
        "aborted",
      );
      const last = await http.send({ ...POST(raw.url), url: `${raw.url}/v1/last` });
      expect(await last.json()).toEqual({ ok: true });
      expect(raw.hits).toEqual(["POST /v1/chat/completions", "POST /v1/last"]);
    });
  });

  describe("firstByteTimeoutMs", () => {
    it("gives up waiting for the headers after firstByteTimeoutMs, well before timeoutMs", async () => {
      const raw = await upstream(() => "hang");
      const failure = await client()
        .send({ ...POST(raw.url), timeoutMs: 600_000, firstByteTimeoutMs: 50 })
        .catch((error: unknown) => error);
      expect(UpstreamError.isInstance(failure)).toBe(true);
      expect((failure as UpstreamError).code).toBe("timeout");
      expect((failure as UpstreamError).message).toContain("within 50 ms");
      expect(raw.hits).toHaveLength(1);
    });
  });
});
