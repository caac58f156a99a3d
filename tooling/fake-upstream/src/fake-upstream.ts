import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { completionBody, streamFrames } from "./completions";
import { echoCredential, splitPoint } from "./credential-echo";
import { credentialLabel } from "./credential-label";
import type {
  FakeUpstream,
  Hit,
  HitAuth,
  Reply,
  ReplyUsage,
  Script,
  UsageEndpoint,
  WireProtocol,
} from "./types";

/** Options of {@link startFakeUpstream}. */
export interface FakeUpstreamOptions {
  /**
   * Protocols served: `openai` (`…/chat/completions`), `anthropic` (`…/messages`),
   * `openai-responses` (`…/responses`), or `both` (`openai` and `anthropic`).
   */
  protocol: WireProtocol | "both";
  /** Label for test output; default the protocol. */
  name?: string;
}

const SECRET_HEADERS = new Set(["authorization", "x-api-key", "cookie"]);

/** Pause between the two writes of a split frame, milliseconds. */
const SPLIT_PAUSE_MS = 15;

const USAGE_ENDPOINTS: readonly UsageEndpoint[] = ["claude", "codex", "copilot", "openrouter"];

function usageEndpointOf(path: string): UsageEndpoint | null {
  if (path.endsWith("/api/oauth/usage")) return "claude";
  if (path.endsWith("/wham/usage") || path.endsWith("/api/codex/usage")) return "codex";
  if (path.endsWith("/copilot_internal/user")) return "copilot";
  if (path.endsWith("/v1/key") || path.endsWith("/v1/auth/key")) return "openrouter";
  return null;
}

function completionProtocolOf(method: string, path: string): WireProtocol | null {
  if (method !== "POST") return null;
  if (path.endsWith("/chat/completions")) return "openai";
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/responses")) return "openai-responses";
  return null;
}

/** The credential a request carried, whole: for echo replies only, never recorded in a hit. */
function credentialOf(request: IncomingMessage): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && authorization !== "") {
    const space = authorization.indexOf(" ");
    return space === -1 ? authorization : authorization.slice(space + 1).trim();
  }
  const apiKey = request.headers["x-api-key"];
  return typeof apiKey === "string" && apiKey !== "" ? apiKey : null;
}

function authOf(request: IncomingMessage): HitAuth {
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && authorization !== "") {
    const space = authorization.indexOf(" ");
    const scheme = space === -1 ? null : authorization.slice(0, space);
    const credential = space === -1 ? authorization : authorization.slice(space + 1).trim();
    return { header: "authorization", scheme, label: credentialLabel(credential) };
  }
  const apiKey = request.headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "") {
    return { header: "x-api-key", scheme: null, label: credentialLabel(apiKey) };
  }
  return { header: null, scheme: null, label: null };
}

function safeHeaders(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (SECRET_HEADERS.has(name) || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function notFound(protocol: WireProtocol | null, path: string): Reply {
  const message = `No route for ${path}`;
  return {
    status: 404,
    body:
      protocol === "anthropic"
        ? { type: "error", error: { type: "not_found_error", message } }
        : { error: { message, type: "invalid_request_error", param: null, code: "not_found" } },
  };
}

function writeJson(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: unknown,
  credential: string | null = null,
) {
  const text = echoCredential(JSON.stringify(body), credential);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

function write(response: ServerResponse, frame: string): Promise<void> {
  return new Promise((resolve, reject) => {
    response.write(frame, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * Starts a scriptable fake LLM upstream on 127.0.0.1 (random port). Completion requests are
 * answered from the script, else with a valid "ok" completion in the request's protocol and
 * stream mode; usage endpoints answer what `usage()` scripted (404 otherwise), and
 * `…/messages/count_tokens` what `countTokens()` set (404 otherwise). A reply may echo the
 * credential it received (`ECHO_CREDENTIAL`). Every request is recorded in `hits` before it is
 * answered; credentials appear there only as short labels.
 */
export async function startFakeUpstream(options: FakeUpstreamOptions): Promise<FakeUpstream> {
  const hits: Hit[] = [];
  let script: Script | null = null;
  let queue: Reply[] = [];
  let countTokens: number | null = null;
  const usagePayloads = new Map<
    UsageEndpoint,
    { payload: unknown; status: number; headers: Record<string, string> }
  >();

  const serves = (protocol: WireProtocol) =>
    options.protocol === protocol ||
    (options.protocol === "both" && protocol !== "openai-responses");

  async function replyFor(hit: Hit): Promise<Reply> {
    if (typeof script === "function") return script(hit);
    const next = queue.shift();
    return next ?? {};
  }

  async function sendCompletion(
    response: ServerResponse,
    hit: Hit,
    reply: Reply,
    protocol: WireProtocol,
    credential: string | null,
  ) {
    const status = reply.status ?? 200;
    const headers = reply.headers ?? {};
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.body !== undefined) {
      return writeJson(response, status, headers, reply.body, credential);
    }
    if (reply.text !== undefined) {
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
      response.end(echoCredential(reply.text, credential));
      return;
    }
    const model = hit.model ?? "fake-model";
    const chunks = (reply.stream?.chunks ?? ["ok"]).map((text) => echoCredential(text, credential));
    const usage: ReplyUsage = reply.stream?.usage ??
      reply.usage ?? { inputTokens: 12, outputTokens: Math.max(1, chunks.length) };
    if (!hit.stream) {
      return writeJson(
        response,
        status,
        headers,
        completionBody(protocol, model, chunks.join(""), usage),
      );
    }
    const body = hit.body as Record<string, unknown> | undefined;
    const streamOptions = body?.stream_options as Record<string, unknown> | undefined;
    const frames = streamFrames(
      protocol,
      model,
      chunks,
      usage,
      streamOptions?.include_usage === true,
    );
    response.writeHead(status, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...headers,
    });
    if (reply.stream?.firstFrameDelayMs) {
      response.flushHeaders();
      await sleep(reply.stream.firstFrameDelayMs);
      if (response.destroyed) return;
    }
    for (const frame of frames.head) await write(response, frame);
    if (reply.stream?.holdUntil) {
      await reply.stream.holdUntil;
      if (response.destroyed) return;
    }
    const cutAfter = reply.stream?.cutAfter;
    for (let i = 0; i < frames.content.length; i++) {
      if (cutAfter !== undefined && i >= cutAfter) break;
      if (i > 0 && reply.stream?.chunkDelayMs) await sleep(reply.stream.chunkDelayMs);
      const frame = frames.content[i]!;
      if (reply.stream?.splitFrames) {
        const cut = splitPoint(frame, credential);
        await write(response, frame.slice(0, cut));
        // A pause long enough that the reader takes the first half as a chunk of its own.
        await sleep(SPLIT_PAUSE_MS);
        await write(response, frame.slice(cut));
      } else {
        await write(response, frame);
      }
    }
    if (cutAfter !== undefined) {
      response.socket?.destroy();
      return;
    }
    for (const frame of frames.tail) await write(response, frame);
    response.end();
  }

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const path = url.pathname;
      const method = request.method ?? "GET";
      const body = await readBody(request);
      const record =
        typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
      const completionProtocol = completionProtocolOf(method, path);
      const usageEndpoint = method === "GET" ? usageEndpointOf(path) : null;
      const hit: Hit = {
        method,
        path,
        query: url.search.slice(1),
        kind: completionProtocol ? "completion" : usageEndpoint ? "usage" : "other",
        protocol: completionProtocol,
        model: typeof record.model === "string" ? record.model : null,
        stream: record.stream === true,
        auth: authOf(request),
        headers: safeHeaders(request),
        body,
        remotePort: request.socket.remotePort ?? 0,
        at: Date.now(),
      };
      hits.push(hit);
      if (usageEndpoint) {
        const scripted = usagePayloads.get(usageEndpoint);
        if (!scripted) return writeJson(response, 404, {}, { error: { message: "Not Found" } });
        return writeJson(response, scripted.status, scripted.headers, scripted.payload);
      }
      if (method === "POST" && path.endsWith("/messages/count_tokens") && serves("anthropic")) {
        if (countTokens !== null) {
          return writeJson(response, 200, {}, { input_tokens: countTokens });
        }
      }
      if (!completionProtocol || !serves(completionProtocol)) {
        const reply = notFound(completionProtocol, path);
        return writeJson(response, reply.status!, {}, reply.body);
      }
      const reply = await replyFor(hit);
      await sendCompletion(response, hit, reply, completionProtocol, credentialOf(request));
    } catch {
      // The client went away mid-reply (a cut or an abort under test): nothing left to answer.
      if (!response.headersSent) response.writeHead(500);
      response.destroy();
    }
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: options.protocol === "anthropic" ? origin : `${origin}/v1`,
    origin,
    name: options.name ?? options.protocol,
    hits,
    completionHits: () => hits.filter((hit) => hit.kind === "completion"),
    script(next) {
      if (Array.isArray(next)) {
        script = null;
        queue = [...next];
      } else {
        script = next;
        queue = [];
      }
    },
    usage(payload, usageOptions = {}) {
      const entry = {
        payload,
        status: usageOptions.status ?? 200,
        headers: usageOptions.headers ?? {},
      };
      for (const endpoint of usageOptions.endpoint ? [usageOptions.endpoint] : USAGE_ENDPOINTS) {
        usagePayloads.set(endpoint, entry);
      }
    },
    countTokens(inputTokens) {
      countTokens = inputTokens;
    },
    reset() {
      countTokens = null;
      hits.length = 0;
      script = null;
      queue = [];
      usagePayloads.clear();
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
