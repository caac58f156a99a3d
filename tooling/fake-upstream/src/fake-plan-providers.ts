import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { credentialLabel } from "./credential-label";
import { createFakeCodex, type FakeCodex } from "./fake-codex";
import { createFakeCopilot, type FakeCopilot } from "./fake-copilot";
import { createFakeKimi, type FakeKimi } from "./fake-kimi";
import { createFakeZai, type FakeZai } from "./fake-zai";
import { noRoute, type PlanRoute } from "./plan-route";

/** Options of {@link startFakePlanProviders}. */
export interface FakePlanProvidersOptions {
  /** Clock for token expiry and quota resets, epoch ms; default `Date.now`. */
  now?: () => number;
  /** Life of issued access tokens, seconds; default 3600. */
  accessTokenTtlSec?: number;
}

/** One request the plan fakes received; credentials only as labels. */
export interface PlanHit {
  method: string;
  path: string;
  /** Authorization scheme (`Bearer`, `token`, or `raw` for a bare key). */
  scheme: string | null;
  /** `credentialLabel` of the credential sent, null when none. */
  label: string | null;
  /** Request headers, lower-case, without `authorization` and `cookie`. */
  headers: Record<string, string>;
  /** Parsed JSON or form body. */
  body: unknown;
}

/** A running set of plan-provider fakes on one loopback port. */
export interface FakePlanProviders {
  origin: string;
  hits: PlanHit[];
  codex: FakeCodex;
  copilot: FakeCopilot;
  zai: FakeZai;
  kimi: FakeKimi;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString("utf8");
  if (String(request.headers["content-type"]).includes("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function credentialOf(request: IncomingMessage): { scheme: string | null; value: string | null } {
  const header = request.headers.authorization;
  if (typeof header !== "string" || header === "") return { scheme: null, value: null };
  const space = header.indexOf(" ");
  if (space === -1) return { scheme: "raw", value: header };
  return { scheme: header.slice(0, space), value: header.slice(space + 1).trim() };
}

/**
 * Starts fakes of the plan providers on 127.0.0.1, speaking their real wire formats: the Codex
 * backend (`/backend-api/codex/responses` SSE only, `stream: false` refused with 400 "Stream
 * must be set to true", with `x-codex-*` headers, a `codex.rate_limits` event, text or a
 * function or custom tool call, optionally no `Content-Type` or a cut before
 * `response.completed`; `/backend-api/wham/usage`; 429 `usage_limit_reached`) and the OpenAI
 * auth server (`/oauth/token`, JSON refresh_token grant with rotation); Copilot
 * (`copilot_internal/v2/token`, `copilot_internal/user`, `/copilot/chat/completions` and
 * `/copilot/models` with the IDE headers it requires, 402 `quota_exceeded`); z.ai
 * (`/api/monitor/usage/quota/limit`, `/api/coding/paas/v4/chat/completions`, 429 code 1308);
 * Kimi (`/coding/v1/usages` with string numbers, `/coding/v1/chat/completions`,
 * `/api/oauth/token` form-encoded with rotation). Stale or unknown tokens get a 401.
 */
export async function startFakePlanProviders(
  options: FakePlanProvidersOptions = {},
): Promise<FakePlanProviders> {
  const now = options.now ?? Date.now;
  const accessTokenTtlSec = options.accessTokenTtlSec ?? 3600;
  const hits: PlanHit[] = [];
  // Each fake's paths are its own: the first route that takes a request answers it.
  let routes: PlanRoute[] = [];

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const path = url.pathname;
      const method = request.method ?? "GET";
      const body = await readBody(request);
      const credential = credentialOf(request);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (name === "authorization" || name === "cookie" || value === undefined) continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      hits.push({
        method,
        path,
        scheme: credential.scheme,
        label: credential.value ? credentialLabel(credential.value) : null,
        headers,
        body,
      });
      const record = (typeof body === "object" && body !== null ? body : {}) as Record<
        string,
        unknown
      >;
      const bearer = credential.scheme === "Bearer" ? credential.value : null;
      const nowSec = Math.floor(now() / 1000);
      const planRequest = { method, path, headers, record, credential, bearer, nowSec };
      for (const route of routes) if (await route(planRequest, response)) return;
      return noRoute(response, path);
    } catch {
      if (!response.headersSent) response.writeHead(500);
      response.destroy();
    }
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const setup = { origin, now, accessTokenTtlSec };
  const codex = createFakeCodex(setup);
  const copilot = createFakeCopilot(setup);
  const zai = createFakeZai(setup);
  const kimi = createFakeKimi(setup);
  routes = [codex.route, copilot.route, zai.route, kimi.route];

  return {
    origin,
    hits,
    codex: codex.fake,
    copilot: copilot.fake,
    zai: zai.fake,
    kimi: kimi.fake,
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
