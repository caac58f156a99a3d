import { codexUsageEvidence, parseCodexResponse, parseCodexUsage } from "@planfirst/quota-cache";
import type { BodyRules } from "../../protocols";
import { joinUrl, type UpstreamConnector } from "../connector";
import {
  bearerUsageRequest,
  connectionCredential,
  refreshableSpec,
  withToken,
} from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorDeps, ConnectorSpec } from "../connector-spec";
import { jwtExpiryMs, refreshTokenRefresher } from "../oauth-refresh";
import { answerReader, usageReading } from "../read-signals";
import { baseRequestHeaders } from "../request-headers";

/** The ChatGPT Codex backend; POST `{base}/responses`. */
const CODEX_DEFAULT_BASE_URL = "https://chatgpt.com/backend-api/codex";

/** OpenAI's auth server token endpoint (refresh_token grant, JSON body). */
const CODEX_DEFAULT_TOKEN_URL = "https://auth.openai.com/oauth/token";

/**
 * The public OAuth client id the Codex CLI's logins are issued to (openai/codex source). A
 * refresh must name the client its refresh token belongs to; override with `clientId`.
 */
const CODEX_CLI_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

/**
 * Client headers forwarded to the Codex backend when the client sent them: the Codex CLI's own
 * `originator`, `version` and `session_id`. planfirst never sends an `originator` of its own.
 */
const CODEX_FORWARDED_HEADERS = ["originator", "version", "session_id"] as const;

/**
 * What the Codex backend requires of every body (quota-signals.md §15): `store: false` (it keeps
 * nothing; a client asking to store is told through `x-planfirst-dropped`) and a top-level
 * `instructions` string, empty when the client has none. The Codex CLI sends both itself.
 */
const CODEX_BODY_RULES: BodyRules = Object.freeze({
  fixed: Object.freeze({ store: false }),
  defaults: Object.freeze({ instructions: "" }),
});

/** The Codex backend's in-band quota event, sent near the start of every Responses stream. */
const CODEX_STREAM_EVENTS: readonly string[] = Object.freeze(["codex.rate_limits"]);

/**
 * The usage endpoint of a Codex base URL: `{origin}/backend-api/wham/usage` for the ChatGPT
 * backend, else `{base}/api/codex/usage` (the CLI's other path style).
 */
export function codexUsageUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const at = url.pathname.indexOf("/backend-api");
  if (at !== -1) return `${url.origin}${url.pathname.slice(0, at)}/backend-api/wham/usage`;
  return joinUrl(baseUrl, "/api/codex/usage");
}

/**
 * A ChatGPT plan through the Codex backend: Responses at `{baseUrl}/responses` with
 * `Authorization: Bearer` and `chatgpt-account-id`; the access token refreshed (refresh_token
 * grant at `tokenUrl`, JSON) before its JWT `exp` and once on a 401, the rotated refresh token
 * persisted. Answers, `wham/usage` and the in-band `codex.rate_limits` event are read by
 * quota-cache's Codex parsers (quota-signals.md §4): windows, `usage_limit_reached` with
 * `resets_at`, and credits, which are overage: a plan with credits keeps serving, and billing,
 * after its window, so credits are evidence `on` (ladder.md E1) and none at all `off`.
 */
export function createCodexConnector(spec: ConnectorSpec, deps: ConnectorDeps): UpstreamConnector {
  const refreshable = refreshableSpec(spec);
  const tokenUrl = refreshable?.tokenUrl ?? CODEX_DEFAULT_TOKEN_URL;
  const clientId = refreshable?.clientId ?? CODEX_CLI_CLIENT_ID;
  const seedFields: Record<string, string> = {};
  if (refreshable?.accountId) seedFields.accountId = refreshable.accountId;
  const credential = connectionCredential(spec, deps, {
    seedFields,
    seedExpiresAtMs: refreshable?.accessToken ? jwtExpiryMs(refreshable.accessToken) : null,
    refresher: refreshTokenRefresher({
      connectionId: spec.id,
      tokenUrl,
      clientId,
      encoding: "json",
      now: deps.now,
      missingRefreshToken:
        "the ChatGPT login has no refresh token; run planfirst login import codex",
      // OpenAI's answer may omit expires_in; the access token is a JWT whose exp says it.
      expiryWithoutExpiresIn: jwtExpiryMs,
    }),
  });
  const baseUrl = spec.baseUrl ?? CODEX_DEFAULT_BASE_URL;
  const url = joinUrl(baseUrl, "/responses");
  const usageUrl = spec.usageUrl ?? codexUsageUrl(baseUrl);

  const accountHeader = (): string => {
    const accountId = credential.field("accountId");
    if (!accountId) {
      throw new ConnectorError({
        code: "invalid_connector_config",
        message: `connection ${spec.id}: the ChatGPT account id is unknown; set credential.accountId or import the login`,
        connectionId: spec.id,
      });
    }
    return accountId;
  };

  return {
    provider: "codex",
    protocol: "openai-responses",
    forwardedClientHeaders: CODEX_FORWARDED_HEADERS,
    // The backend answers `stream: false` with 400 "Stream must be set to true": a whole
    // request is streamed and collected by the dispatcher.
    streamOnly: true,
    // The Codex CLI sends its conversation id as `prompt_cache_key`; the backend routes by it.
    acceptsPromptCacheKey: true,
    bodyRules: CODEX_BODY_RULES,
    prepare(call) {
      return withToken(credential, (token) => {
        const headers = baseRequestHeaders(call, spec.headers, CODEX_FORWARDED_HEADERS);
        headers.authorization = `Bearer ${token}`;
        headers["chatgpt-account-id"] = accountHeader();
        return { url, headers };
      });
    },
    usageRequest: () =>
      bearerUsageRequest(credential, usageUrl, () => ({ "chatgpt-account-id": accountHeader() })),
    readUsage: readCodexUsage,
    readResponse: answerReader(parseCodexResponse),
    streamEvents: CODEX_STREAM_EVENTS,
    readStreamEvent: (_event, data, observedAtMs) => readCodexUsage(data, observedAtMs),
    invalidateCredential: (token) => credential.invalidate(token),
  };
}

/** Windows and credits evidence of a `wham/usage` payload or a `codex.rate_limits` event. */
function readCodexUsage(payload: unknown, observedAtMs: number) {
  return usageReading(
    parseCodexUsage(payload, observedAtMs),
    codexUsageEvidence(payload, observedAtMs),
  );
}
