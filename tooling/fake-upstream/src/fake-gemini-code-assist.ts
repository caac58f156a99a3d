import { randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CodeAssistAccount, createCodeAssistAccount } from "./code-assist-account";
import { credentialLabel } from "./credential-label";
import { type GenerationKnobs, generate } from "./gemini-generate";
import { json, readBody, record, reply } from "./gemini-http";
import { rpcError } from "./google-rpc";

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

/**
 * A running fake of Google's token endpoint and the Code Assist API; the knobs of how it answers
 * generation are those of {@link GenerationKnobs}.
 */
export interface FakeGeminiCodeAssist extends GenerationKnobs {
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
  close(): Promise<void>;
}

/** The OAuth client id the fake Google token endpoint accepts. */
export const GEMINI_FAKE_CLIENT_ID = "fake-gemini-client.apps.googleusercontent.com";

/** Where `GET` reads a long-running operation: `{base}/operations/…`. */
const OPERATIONS_PREFIX = "/v1internal/operations/";

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
          return generate(response, record(body), url.pathname.endsWith(":streamGenerateContent"), {
            fake,
            account,
            now,
          });
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
