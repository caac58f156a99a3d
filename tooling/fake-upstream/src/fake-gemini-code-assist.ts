import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CodeAssistAccount, createCodeAssistAccount } from "./code-assist-account";
import { credentialLabel } from "./credential-label";
import { type JsonReply, rpcError } from "./google-rpc";

/** Options of {@link startFakeGeminiCodeAssist}. */
export interface FakeGeminiCodeAssistOptions {
  /** Clock for token expiry and quota resets, epoch ms; default `Date.now`. */
  now?: () => number;
  /** Life of issued access tokens, seconds (Google's is 3599); default 3599. */
  accessTokenTtlSec?: number;
  /**
   * The installed app's client secret the token endpoint requires (`invalid_client` without
   * it, as Google answers); default none required.
   */
  clientSecret?: string;
  /**
   * False for a login that never set Code Assist up: `:loadCodeAssist` names no current tier and
   * no project until `:onboardUser` has run (see {@link CodeAssistAccount}); default true.
   */
  setUp?: boolean;
}

/** One request the fake received; credentials only as labels. */
export interface GeminiHit {
  /** Path with the RPC suffix (`/v1internal:streamGenerateContent`, `/token`). */
  path: string;
  /** The query string without `?` (`alt=sse`), "" when none. */
  query: string;
  /** `credentialLabel` of the Bearer token sent, null when none. */
  label: string | null;
  /** Request headers, lower-case, without `authorization`. */
  headers: Record<string, string>;
  /** Parsed JSON or form body. */
  body: unknown;
}

/** A running fake of Google's token endpoint and the Code Assist API. */
export interface FakeGeminiCodeAssist {
  origin: string;
  /**
   * `{origin}/v1internal`: POST `:loadCodeAssist`, `:onboardUser`, `:generateContent`,
   * `:streamGenerateContent?alt=sse`, `:retrieveUserQuota`; GET `/operations/…`.
   */
  baseUrl: string;
  /** `{origin}/token`: the refresh_token grant (form body). */
  tokenUrl: string;
  /** The OAuth client id the token endpoint accepts. */
  clientId: string;
  /** The project `:loadCodeAssist` names (once set up) and generation requires in the body. */
  readonly project: string;
  /** The account's Code Assist state: set up or not, onboarding behaviour. */
  account: CodeAssistAccount;
  hits: GeminiHit[];
  /** A refresh token as a "Login with Google" would have stored it (Google does not rotate it). */
  refreshToken: string;
  /**
   * An access token as a fresh "Login with Google" holds it, valid for `accessTokenTtlSec`
   * from now, and its expiry (epoch ms), without a refresh.
   */
  issueAccessToken(): { accessToken: string; expiresAtMs: number };
  /** Revokes every access token so far: the next call with one is a 401 `UNAUTHENTICATED`. */
  expireAccessTokens(): void;
  /** Successful refreshes so far. */
  readonly refreshes: number;
  /** Make the token endpoint answer 400 `invalid_grant`. */
  failRefreshes: boolean;
  /** `remainingFraction` per model reported by `:retrieveUserQuota`; default gemini-2.5-pro 0.8. */
  remaining: Record<string, number>;
  /** `resetTime` of every bucket, epoch ms; default now + 24 h. */
  resetAtMs: number | null;
  /**
   * When set, generation answers 429 `RESOURCE_EXHAUSTED` with ErrorInfo `QUOTA_EXHAUSTED` and
   * `quotaResetTimeStamp` at this epoch ms.
   */
  exhaustedUntilMs: number | null;
  /** When set, generation answers 429 `RATE_LIMIT_EXCEEDED` with this RetryInfo delay, ms. */
  rateLimitedForMs: number | null;
  /** When true, generation answers 403 `VALIDATION_REQUIRED`. */
  validationRequired: boolean;
  /** Text of the answer; default "Hello from Gemini.". */
  answerText: string;
  /** When set, the answer is this one function call instead of text. */
  functionCall: { name: string; args: Record<string, unknown> } | null;
  close(): Promise<void>;
}

/** The OAuth client id the fake Google token endpoint accepts. */
export const GEMINI_FAKE_CLIENT_ID = "fake-gemini-client.apps.googleusercontent.com";

/** Where `GET` reads a long-running operation: `{base}/operations/…`. */
const OPERATIONS_PREFIX = "/v1internal/operations/";

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  if (String(request.headers["content-type"]).includes("application/x-www-form-urlencoded"))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Go-style seconds with nanosecond decimals, as RetryInfo writes them (`0.976066617s`). */
function retryDelay(ms: number): string {
  return `${(ms / 1000).toFixed(9).replace(/0+$/, "").replace(/\.$/, "")}s`;
}

/**
 * Starts a fake of Gemini Code Assist on 127.0.0.1, in its real wire formats: Google's token
 * endpoint (`/token`, form refresh_token grant, no rotation, `invalid_grant`, `invalid_client`),
 * and `/v1internal:loadCodeAssist`, `:onboardUser` with its operation at `GET
 * /v1internal/operations/…` (see {@link CodeAssistAccount}), `:generateContent` and
 * `:streamGenerateContent?alt=sse` (answers wrapped as `{"response": …, "traceId": …}`, SSE
 * frames ending in CRLF CRLF; a body without the account's project refused as Google does),
 * and `:retrieveUserQuota` (per-model buckets with `remainingFraction` and `resetTime`). A stale
 * or unknown access token gets 401 `UNAUTHENTICATED`; quota exhaustion 429 `RESOURCE_EXHAUSTED`.
 */
export async function startFakeGeminiCodeAssist(
  options: FakeGeminiCodeAssistOptions = {},
): Promise<FakeGeminiCodeAssist> {
  const now = options.now ?? Date.now;
  const ttlSec = options.accessTokenTtlSec ?? 3599;
  const access = new Map<string, number>();
  const refreshToken = `1//fake-gemini-rt-${randomBytes(12).toString("base64url")}`;
  let refreshes = 0;
  const account = createCodeAssistAccount({
    project: "fake-companion-project-4242",
    ...(options.setUp === undefined ? {} : { setUp: options.setUp }),
  });
  const reply = (response: ServerResponse, answer: JsonReply) =>
    json(response, answer.status, answer.body);

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const body = await readBody(request);
      const authorization = request.headers.authorization;
      const bearer =
        typeof authorization === "string" && authorization.startsWith("Bearer ")
          ? authorization.slice(7)
          : null;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (name === "authorization" || value === undefined) continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      fake.hits.push({
        path: url.pathname,
        query: url.search.replace(/^\?/, ""),
        label: bearer ? credentialLabel(bearer) : null,
        headers,
        body,
      });
      const operation = url.pathname.startsWith(OPERATIONS_PREFIX);
      if (request.method !== (operation ? "GET" : "POST"))
        return json(response, 404, rpcError(404, "NOT_FOUND", "not found"));
      if (url.pathname === "/token") return token(response, record(body));
      const expiresAt = bearer ? access.get(bearer) : undefined;
      if (expiresAt === undefined || expiresAt <= now()) {
        return json(
          response,
          401,
          rpcError(
            401,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
          ),
        );
      }
      if (operation)
        return reply(response, account.operation(url.pathname.slice("/v1internal/".length)));
      switch (url.pathname) {
        case "/v1internal:loadCodeAssist":
          return json(response, 200, account.loadCodeAssist());
        case "/v1internal:onboardUser":
          return reply(response, account.onboardUser(record(body)));
        case "/v1internal:retrieveUserQuota":
          if (record(body).project !== fake.project)
            return json(response, 403, rpcError(403, "PERMISSION_DENIED", "project mismatch"));
          return json(response, 200, { buckets: buckets() });
        case "/v1internal:generateContent":
        case "/v1internal:streamGenerateContent":
          return generate(response, record(body), url.pathname.endsWith(":streamGenerateContent"));
        default:
          return json(response, 404, rpcError(404, "NOT_FOUND", `no method ${url.pathname}`));
      }
    } catch {
      if (!response.headersSent) json(response, 500, rpcError(500, "INTERNAL", "fake failed"));
      else response.end();
    }
  });

  function token(response: ServerResponse, form: Record<string, unknown>) {
    if (
      form.client_id !== GEMINI_FAKE_CLIENT_ID ||
      (options.clientSecret !== undefined && form.client_secret !== options.clientSecret)
    )
      return json(response, 401, {
        error: "invalid_client",
        error_description: "The OAuth client was not found.",
      });
    if (
      form.grant_type !== "refresh_token" ||
      form.refresh_token !== refreshToken ||
      fake.failRefreshes
    )
      return json(response, 400, { error: "invalid_grant", error_description: "Bad Request" });
    refreshes += 1;
    const { accessToken } = issueAccessToken();
    json(response, 200, {
      access_token: accessToken,
      expires_in: ttlSec,
      scope: "https://www.googleapis.com/auth/cloud-platform",
      token_type: "Bearer",
    });
  }

  function issueAccessToken() {
    const accessToken = `ya29.fake-${randomBytes(16).toString("base64url")}`;
    const expiresAtMs = now() + ttlSec * 1000;
    access.set(accessToken, expiresAtMs);
    return { accessToken, expiresAtMs };
  }

  function buckets() {
    const resetMs = fake.resetAtMs ?? now() + 86_400_000;
    return Object.entries(fake.remaining).map(([modelId, fraction]) => {
      const bucket: Record<string, unknown> = {
        resetTime: new Date(resetMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
        tokenType: "REQUESTS",
        modelId,
        remainingFraction: fraction,
      };
      // `remainingAmount` is an int64 as a string, omitted at 100 %.
      if (fraction < 1) bucket.remainingAmount = String(Math.round(fraction * 1000));
      return bucket;
    });
  }

  function generate(response: ServerResponse, body: Record<string, unknown>, stream: boolean) {
    const model = typeof body.model === "string" ? body.model : "";
    const refusal = account.generationRefusal(body.project);
    if (refusal) return reply(response, refusal);
    if (!Array.isArray(record(body.request).contents))
      return json(response, 400, rpcError(400, "INVALID_ARGUMENT", "request.contents is required"));
    if (fake.validationRequired) {
      return json(
        response,
        403,
        rpcError(403, "PERMISSION_DENIED", "Verify your account to continue.", [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "VALIDATION_REQUIRED",
            domain: "cloudcode-pa.googleapis.com",
          },
          {
            "@type": "type.googleapis.com/google.rpc.Help",
            links: [{ description: "Verify", url: "https://accounts.google.com/" }],
          },
        ]),
      );
    }
    if (fake.exhaustedUntilMs !== null && fake.exhaustedUntilMs > now()) {
      const delayMs = fake.exhaustedUntilMs - now();
      return json(
        response,
        429,
        rpcError(
          429,
          "RESOURCE_EXHAUSTED",
          `You have exhausted your capacity on this model. Your quota will reset after ${Math.ceil(delayMs / 1000)}s.`,
          [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "QUOTA_EXHAUSTED",
              domain: "cloudcode-pa.googleapis.com",
              metadata: {
                uiMessage: "true",
                model,
                quotaResetDelay: retryDelay(delayMs),
                quotaResetTimeStamp: new Date(fake.exhaustedUntilMs)
                  .toISOString()
                  .replace(/\.\d{3}Z$/, "Z"),
              },
            },
            {
              "@type": "type.googleapis.com/google.rpc.RetryInfo",
              retryDelay: retryDelay(delayMs),
            },
          ],
        ),
      );
    }
    if (fake.rateLimitedForMs !== null) {
      return json(
        response,
        429,
        rpcError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "RATE_LIMIT_EXCEEDED",
            domain: "cloudcode-pa.googleapis.com",
            metadata: { model, quotaResetDelay: retryDelay(fake.rateLimitedForMs) },
          },
          {
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            retryDelay: retryDelay(fake.rateLimitedForMs),
          },
        ]),
      );
    }
    const responseId = `fake-${randomBytes(8).toString("hex")}`;
    const traceId = randomBytes(8).toString("hex");
    const usage = (candidates: number) => ({
      promptTokenCount: 21,
      candidatesTokenCount: candidates,
      thoughtsTokenCount: 5,
      totalTokenCount: 26 + candidates,
    });
    const wrap = (candidate: Record<string, unknown>, candidates: number) => ({
      response: {
        candidates: [candidate],
        usageMetadata: usage(candidates),
        modelVersion: model,
        responseId,
      },
      traceId,
    });
    const call = fake.functionCall;
    const parts = call ? [{ functionCall: call }] : [{ text: fake.answerText }];
    if (!stream) {
      return json(
        response,
        200,
        wrap({ content: { role: "model", parts }, finishReason: "STOP" }, 7),
      );
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const frames: unknown[] = [
      wrap({ content: { role: "model", parts: [{ text: "Weighing it up.", thought: true }] } }, 0),
    ];
    if (call) frames.push(wrap({ content: { role: "model", parts }, finishReason: "STOP" }, 7));
    else {
      const text = fake.answerText;
      const half = Math.ceil(text.length / 2);
      frames.push(wrap({ content: { role: "model", parts: [{ text: text.slice(0, half) }] } }, 3));
      frames.push(
        wrap(
          { content: { role: "model", parts: [{ text: text.slice(half) }] }, finishReason: "STOP" },
          7,
        ),
      );
    }
    for (const frame of frames) response.write(`data: ${JSON.stringify(frame)}\r\n\r\n`);
    response.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeGeminiCodeAssist = {
    origin,
    baseUrl: `${origin}/v1internal`,
    tokenUrl: `${origin}/token`,
    clientId: GEMINI_FAKE_CLIENT_ID,
    get project() {
      return account.project;
    },
    account,
    hits: [],
    refreshToken,
    issueAccessToken,
    expireAccessTokens: () => access.clear(),
    get refreshes() {
      return refreshes;
    },
    failRefreshes: false,
    remaining: { "gemini-2.5-pro": 0.8 },
    resetAtMs: null,
    exhaustedUntilMs: null,
    rateLimitedForMs: null,
    validationRequired: false,
    answerText: "Hello from Gemini.",
    functionCall: null,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return fake;
}
