import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type CodexToolCall, codexSse, codexStreamFrames } from "./codex-stream";
import { completionBody, streamFrames } from "./completions";
import { copilotIdeHeaderRefusal } from "./copilot-ide-headers";
import { echoCredential } from "./credential-echo";
import { credentialLabel } from "./credential-label";
import { githubRequestId } from "./ids";
import {
  codexUsagePayload,
  copilotModelsPayload,
  copilotUserPayload,
  kimiUsagePayload,
  zaiUsagePayload,
} from "./plan-payloads";
import { codexHeaders } from "./quota-headers";
import { createTokenAuthority, type IssuedTokens, type TokenAuthority } from "./token-authority";

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

/** Knobs shared by the OAuth-backed fakes. */
export interface FakeOauthControls {
  /** POST target of the refresh_token grant. */
  tokenUrl: string;
  /** The client id the token endpoint accepts. */
  clientId: string;
  /** A fresh login (as an official CLI would have stored it). */
  issueLogin(): IssuedTokens;
  /** Revokes every access token so far: the next call with one is a 401. */
  expireAccessTokens(): void;
  /** Successful refreshes so far. */
  readonly refreshes: number;
  /** Token endpoint requests so far, successful or not. */
  readonly tokenRequests: number;
  /** Make the token endpoint refuse every refresh (`invalid_grant`). */
  failRefreshes(fail: boolean): void;
  /** Delay each token endpoint answer, ms (to hold concurrent refreshes in flight). */
  refreshDelayMs: number;
}

/** The Codex backend and the OpenAI auth server. */
export interface FakeCodex extends FakeOauthControls {
  /** `{origin}/backend-api/codex`: POST `/responses`. */
  baseUrl: string;
  /** `{origin}/backend-api/wham/usage`. */
  usageUrl: string;
  /** The ChatGPT account the backend requires in `chatgpt-account-id`. */
  accountId: string;
  /** Used percent of the 5 h window reported in headers, events and usage; default 10. */
  fiveHourUsedPercent: number;
  /** Whether the account has credits (overage on); default false. */
  hasCredits: boolean;
  /** When set, `/responses` answers 429 `usage_limit_reached` resetting at this epoch second. */
  exhaustedUntilSec: number | null;
  /**
   * The text `/responses` answers; `ECHO_CREDENTIAL` in it is replaced by the access token the
   * request carried (an upstream that repeats back what it received). Default "ok".
   */
  text: string;
  /**
   * A tool call `/responses` answers with instead of text when the request declared a tool of
   * its kind (the first one); default null.
   */
  toolCall: CodexToolCall | null;
  /**
   * The stream's `Content-Type`; null sends none, as the real backend was reported doing.
   * Default `text/event-stream; charset=utf-8`.
   */
  streamContentType: string | null;
  /**
   * Cuts the stream after its output item, before `response.completed`: `end` ends the body
   * there, `reset` drops the connection. Default null, a complete stream.
   */
  streamCut: "end" | "reset" | null;
}

/** The Copilot token exchange, user endpoint and inference API. */
export interface FakeCopilot {
  /** `GET copilot_internal/v2/token`. */
  tokenUrl: string;
  /** `GET copilot_internal/user`. */
  userUrl: string;
  /**
   * The GitHub API origin (`api.github.com` of the fake): what the Copilot CLI's
   * `COPILOT_DEBUG_GITHUB_API_URL` points at.
   */
  githubApiUrl: string;
  /** The inference base announced in `endpoints.api`: POST `/chat/completions`, GET `/models`. */
  apiBaseUrl: string;
  /** Model ids `GET /models` lists; default `gpt-4.1`, `gpt-5-mini`, `claude-sonnet-4.5`. */
  models: string[];
  /** The GitHub token the fake accepts. */
  githubToken: string;
  /** Exchanges so far. */
  readonly exchanges: number;
  /** Revokes every Copilot session token so far. */
  expireSessionTokens(): void;
  /** Premium requests left, percent; default 80. */
  premiumPercentRemaining: number;
  /** When true, chat completions answer 402 `quota_exceeded`. */
  exhausted: boolean;
  /** `quota_reset_date_utc` reported; default the 1st of next month. */
  resetDateUtc: string;
}

/** The z.ai coding plan. */
export interface FakeZai {
  /** `{origin}/api/coding/paas/v4`: POST `/chat/completions`. */
  baseUrl: string;
  usageUrl: string;
  apiKey: string;
  /** TOKENS_LIMIT percentage used; default 20. */
  tokensPercentUsed: number;
  /** TOKENS_LIMIT nextResetTime, epoch ms; default now + 5 h. */
  tokensResetAtMs: number | null;
  /** When set, chat completions answer 429 code 1308 with this Beijing-time reset text. */
  exhaustedUntilBeijing: string | null;
}

/** The Kimi Code plan and its auth server. */
export interface FakeKimi extends FakeOauthControls {
  /** `{origin}/coding/v1`: POST `/chat/completions`. */
  baseUrl: string;
  usageUrl: string;
  /** Requests used of the 5 h window (limit 100); default 10. */
  sessionUsed: number;
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

/** The OAuth client id the fake OpenAI auth server accepts (configure connectors with it). */
export const CODEX_FAKE_CLIENT_ID = "app_fake_codex_client";

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/** A plain-text answer, as Go's `http.Error` writes one (GitHub's Copilot API refusals). */
function plainText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
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

const CHAT_ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/**
 * True when a chat body passes the part of Copilot's schema check the fake models: `messages` an
 * array of messages with a chat role, and `temperature`, when set, a number from 0 to 2.
 */
function isValidChatBody(record: Record<string, unknown>): boolean {
  const { messages, temperature } = record;
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== "number" || temperature < 0 || temperature > 2) return false;
  }
  return (
    Array.isArray(messages) &&
    messages.every(
      (message) =>
        typeof message === "object" &&
        message !== null &&
        CHAT_ROLES.has((message as Record<string, unknown>).role as string),
    )
  );
}

function credentialOf(request: IncomingMessage): { scheme: string | null; value: string | null } {
  const header = request.headers.authorization;
  if (typeof header !== "string" || header === "") return { scheme: null, value: null };
  const space = header.indexOf(" ");
  if (space === -1) return { scheme: "raw", value: header };
  return { scheme: header.slice(0, space), value: header.slice(space + 1).trim() };
}

function firstOfNextMonthUtc(nowMs: number): string {
  const now = new Date(nowMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

function oauthControls(
  authority: TokenAuthority,
  tokenUrl: string,
  clientId: string,
  counters: { tokenRequests: number; failRefreshes: boolean },
) {
  return {
    tokenUrl,
    clientId,
    issueLogin: () => authority.issue(),
    expireAccessTokens: () => authority.expireAccessTokens(),
    get refreshes() {
      return authority.refreshes;
    },
    get tokenRequests() {
      return counters.tokenRequests;
    },
    failRefreshes(fail: boolean) {
      counters.failRefreshes = fail;
    },
    refreshDelayMs: 0,
  };
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
  const ttl = options.accessTokenTtlSec ?? 3600;
  const hits: PlanHit[] = [];
  const accountId = "acct-fake-0001";
  const openai = createTokenAuthority({
    prefix: "oai",
    now,
    accessTokenTtlSec: ttl,
    jwtClaims: { "https://api.openai.com/auth": { chatgpt_account_id: accountId } },
  });
  const kimiAuthority = createTokenAuthority({ prefix: "kimi", now, accessTokenTtlSec: ttl });
  const copilotSessions = createTokenAuthority({
    prefix: "tid=fake",
    now,
    accessTokenTtlSec: 1800,
  });
  const codexCounters = { tokenRequests: 0, failRefreshes: false };
  const kimiCounters = { tokenRequests: 0, failRefreshes: false };
  let exchanges = 0;

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

      // OpenAI auth server and Kimi auth server: refresh_token grant with rotation.
      if (method === "POST" && (path === "/oauth/token" || path === "/api/oauth/token")) {
        const isCodex = path === "/oauth/token";
        const counters = isCodex ? codexCounters : kimiCounters;
        const controls = isCodex ? codex : kimi;
        counters.tokenRequests += 1;
        if (controls.refreshDelayMs > 0) await sleep(controls.refreshDelayMs);
        const authority = isCodex ? openai : kimiAuthority;
        if (record.grant_type !== "refresh_token" || record.client_id !== controls.clientId) {
          return json(response, 400, {
            error: "invalid_request",
            error_description: "unsupported grant or client",
          });
        }
        const issued =
          counters.failRefreshes || typeof record.refresh_token !== "string"
            ? null
            : authority.refresh(record.refresh_token);
        if (!issued) {
          return json(response, 400, {
            error: "invalid_grant",
            error_description: "refresh token is invalid, expired or already used",
          });
        }
        return json(response, 200, {
          ...(isCodex
            ? { id_token: issued.accessToken }
            : { scope: "kimi-code", token_type: "Bearer" }),
          access_token: issued.accessToken,
          refresh_token: issued.refreshToken,
          expires_in: issued.expiresAtSec - nowSec,
        });
      }

      // Codex backend.
      if (path.startsWith("/backend-api/")) {
        if (!bearer || !openai.accepts(bearer)) {
          return json(response, 401, {
            detail: "Could not parse your authentication token. Please try signing in again.",
          });
        }
        if (request.headers["chatgpt-account-id"] !== accountId) {
          return json(response, 403, { detail: "Workspace account mismatch" });
        }
        const fiveHourResetAtSec = nowSec + 4 * 3600;
        const weeklyResetAtSec = nowSec + 5 * 86_400;
        if (method === "GET" && path === "/backend-api/wham/usage") {
          return json(
            response,
            200,
            codexUsagePayload({
              fiveHourUsedPercent: codex.exhaustedUntilSec ? 100 : codex.fiveHourUsedPercent,
              weeklyUsedPercent: 30,
              fiveHourResetAtSec: codex.exhaustedUntilSec ?? fiveHourResetAtSec,
              weeklyResetAtSec,
              nowSec,
              hasCredits: codex.hasCredits,
            }),
          );
        }
        if (method === "POST" && path === "/backend-api/codex/responses") {
          const credits = {
            hasCredits: codex.hasCredits,
            unlimited: false,
            balance: codex.hasCredits ? "25" : "0",
          };
          if (codex.exhaustedUntilSec !== null) {
            return json(
              response,
              429,
              {
                error: {
                  type: "usage_limit_reached",
                  message: "You have hit your ChatGPT usage limit (pro plan). Try again later.",
                  plan_type: "pro",
                  resets_at: codex.exhaustedUntilSec,
                  resets_in_seconds: Math.max(0, codex.exhaustedUntilSec - nowSec),
                },
              },
              codexHeaders({
                primary: {
                  usedPercent: 100,
                  windowMinutes: 300,
                  resetAtSec: codex.exhaustedUntilSec,
                },
                secondary: { usedPercent: 30, windowMinutes: 10_080, resetAtSec: weeklyResetAtSec },
                credits,
                nowSec,
              }),
            );
          }
          if (record.stream !== true) {
            return json(response, 400, { detail: "Stream must be set to true" });
          }
          const model = typeof record.model === "string" ? record.model : "gpt-5-codex";
          const frames = codexStreamFrames({
            model,
            tools: record.tools,
            toolCall: codex.toolCall,
            text: echoCredential(codex.text, bearer),
            usage: { inputTokens: 12, outputTokens: 1 },
          });
          response.writeHead(200, {
            ...(codex.streamContentType === null
              ? {}
              : { "content-type": codex.streamContentType }),
            "cache-control": "no-cache",
            ...codexHeaders({
              primary: {
                usedPercent: codex.fiveHourUsedPercent,
                windowMinutes: 300,
                resetAtSec: fiveHourResetAtSec,
              },
              secondary: { usedPercent: 30, windowMinutes: 10_080, resetAtSec: weeklyResetAtSec },
              credits,
              nowSec,
            }),
          });
          response.write(frames.created);
          response.write(
            codexSse("codex.rate_limits", {
              type: "codex.rate_limits",
              plan_type: "pro",
              rate_limits: {
                primary: {
                  used_percent: codex.fiveHourUsedPercent,
                  window_minutes: 300,
                  reset_at: fiveHourResetAtSec,
                },
                secondary: { used_percent: 30, window_minutes: 10_080, reset_at: weeklyResetAtSec },
              },
              credits: {
                has_credits: codex.hasCredits,
                unlimited: false,
                balance: credits.balance,
              },
            }),
          );
          for (const frame of frames.output) response.write(frame);
          // Cut before `response.completed`: a body that simply ends, or a connection lost.
          if (codex.streamCut === "end") response.end();
          // Dropped once the frames so far have left, so the client has read them first.
          else if (codex.streamCut === "reset") response.write("\n", () => response.destroy());
          else response.end(frames.completed);
          return;
        }
        return json(response, 404, { detail: "Not Found" });
      }

      // Copilot: exchange and user endpoint are the GitHub API, which takes the GitHub token as
      // `token …` or `Bearer …` alike (IDE extensions send the first, the language server and the
      // Copilot CLI the second); every GitHub answer carries an `x-github-request-id`.
      if (path === "/copilot_internal/v2/token" || path === "/copilot_internal/user") {
        const github = { "x-github-request-id": githubRequestId() };
        const scheme = credential.scheme?.toLowerCase();
        if (
          (scheme !== "token" && scheme !== "bearer") ||
          credential.value !== copilot.githubToken
        ) {
          return json(
            response,
            401,
            { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" },
            github,
          );
        }
        if (path === "/copilot_internal/user") {
          return json(
            response,
            200,
            copilotUserPayload({
              apiBase: copilot.apiBaseUrl,
              premiumPercentRemaining: copilot.exhausted ? 0 : copilot.premiumPercentRemaining,
              resetDateUtc: copilot.resetDateUtc,
            }),
            github,
          );
        }
        exchanges += 1;
        const session = copilotSessions.issue();
        return json(
          response,
          200,
          {
            token: session.accessToken,
            expires_at: session.expiresAtSec,
            refresh_in: Math.max(0, session.expiresAtSec - nowSec - 300),
            endpoints: { api: copilot.apiBaseUrl },
            sku: "plus_monthly_subscriber_quota",
            chat_enabled: true,
          },
          github,
        );
      }
      // Copilot inference: a session token from the exchange, or the GitHub token itself as the
      // Copilot CLI sends it, and the IDE headers the real API requires (its refusals are plain
      // text, not JSON).
      const copilotInference =
        (path === "/copilot/chat/completions" && method === "POST") ||
        (path === "/copilot/models" && method === "GET");
      if (copilotInference) {
        const github = { "x-github-request-id": githubRequestId() };
        const githubToken = bearer !== null && bearer === copilot.githubToken;
        if (!bearer || !(githubToken || copilotSessions.accepts(bearer))) {
          return json(
            response,
            401,
            { error: { message: "unauthorized: token expired", code: "unauthorized" } },
            github,
          );
        }
        const refusal = copilotIdeHeaderRefusal(headers, githubToken);
        if (refusal) return plainText(response, 400, refusal, github);
        if (path === "/copilot/models") {
          return json(response, 200, copilotModelsPayload(copilot.models), github);
        }
        if (!isValidChatBody(record)) {
          return json(
            response,
            400,
            { error: { message: "invalid request body", code: "invalid_request_body" } },
            github,
          );
        }
        if (copilot.exhausted) {
          return json(
            response,
            402,
            { error: { message: "You have no quota", code: "quota_exceeded" } },
            github,
          );
        }
        return chatCompletion(response, record);
      }

      // z.ai.
      if (path === "/api/monitor/usage/quota/limit") {
        if (credential.value !== zai.apiKey) {
          // z.ai answers a bad key on its monitor API with HTTP 200 and code 401 in the body.
          return json(response, 200, {
            code: 401,
            msg: "token expired or incorrect",
            success: false,
          });
        }
        return json(
          response,
          200,
          zaiUsagePayload({
            tokensPercentUsed: zai.exhaustedUntilBeijing ? 100 : zai.tokensPercentUsed,
            tokensResetAtMs: zai.tokensResetAtMs ?? now() + 5 * 3600_000,
            toolCallsUsed: 12,
          }),
        );
      }
      if (path === "/api/coding/paas/v4/chat/completions" && method === "POST") {
        if (bearer !== zai.apiKey) {
          return json(response, 401, { error: { code: "1000", message: "Authentication Failed" } });
        }
        if (zai.exhaustedUntilBeijing) {
          return json(response, 429, {
            error: {
              code: "1308",
              message: `Usage limit reached for 5 hour. Your limit will reset at ${zai.exhaustedUntilBeijing}`,
            },
          });
        }
        return chatCompletion(response, record);
      }

      // Kimi.
      if (path.startsWith("/coding/v1/")) {
        if (!bearer || !kimiAuthority.accepts(bearer)) {
          return json(response, 401, {
            error: {
              message: "The API Key appears to be invalid or may have expired.",
              type: "invalid_authentication_error",
            },
          });
        }
        if (method === "GET" && path === "/coding/v1/usages") {
          return json(
            response,
            200,
            kimiUsagePayload({
              weeklyLimit: 2048,
              weeklyUsed: 512,
              weeklyResetAt: new Date(now() + 3 * 86_400_000).toISOString(),
              sessionLimit: 100,
              sessionUsed: kimi.sessionUsed,
              sessionResetAt: new Date(now() + 2 * 3600_000).toISOString(),
            }),
          );
        }
        if (method === "POST" && path === "/coding/v1/chat/completions")
          return chatCompletion(response, record);
      }
      return json(response, 404, { error: { message: `No route for ${path}` } });
    } catch {
      if (!response.headersSent) response.writeHead(500);
      response.destroy();
    }
  });

  function chatCompletion(response: ServerResponse, record: Record<string, unknown>) {
    const model = typeof record.model === "string" ? record.model : "fake-model";
    const usage = { inputTokens: 12, outputTokens: 1 };
    if (record.stream !== true)
      return json(response, 200, completionBody("openai", model, "ok", usage));
    const frames = streamFrames("openai", model, ["ok"], usage, true);
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    });
    response.end([...frames.head, ...frames.content, ...frames.tail].join(""));
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  const codex: FakeCodex = Object.assign(
    oauthControls(openai, `${origin}/oauth/token`, CODEX_FAKE_CLIENT_ID, codexCounters),
    {
      baseUrl: `${origin}/backend-api/codex`,
      usageUrl: `${origin}/backend-api/wham/usage`,
      accountId,
      fiveHourUsedPercent: 10,
      hasCredits: false,
      exhaustedUntilSec: null as number | null,
      text: "ok",
      toolCall: null as CodexToolCall | null,
      streamContentType: "text/event-stream; charset=utf-8" as string | null,
      streamCut: null as FakeCodex["streamCut"],
    },
  );
  const kimi: FakeKimi = Object.assign(
    oauthControls(kimiAuthority, `${origin}/api/oauth/token`, "kimi-fake-client", kimiCounters),
    { baseUrl: `${origin}/coding/v1`, usageUrl: `${origin}/coding/v1/usages`, sessionUsed: 10 },
  );
  const copilot: FakeCopilot = {
    tokenUrl: `${origin}/copilot_internal/v2/token`,
    userUrl: `${origin}/copilot_internal/user`,
    githubApiUrl: origin,
    apiBaseUrl: `${origin}/copilot`,
    models: ["gpt-4.1", "gpt-5-mini", "claude-sonnet-4.5"],
    githubToken: "gho_fakeGithubToken0001",
    get exchanges() {
      return exchanges;
    },
    expireSessionTokens: () => copilotSessions.expireAccessTokens(),
    premiumPercentRemaining: 80,
    exhausted: false,
    resetDateUtc: firstOfNextMonthUtc(now()),
  };
  const zai: FakeZai = {
    baseUrl: `${origin}/api/coding/paas/v4`,
    usageUrl: `${origin}/api/monitor/usage/quota/limit`,
    apiKey: "zai-fake-key-0001.abcdef",
    tokensPercentUsed: 20,
    tokensResetAtMs: null,
    exhaustedUntilBeijing: null,
  };

  return {
    origin,
    hits,
    codex,
    copilot,
    zai,
    kimi,
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
