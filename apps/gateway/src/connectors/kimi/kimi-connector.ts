import { parseGenericResponse } from "@planfirst/quota-cache";
import type { UpstreamConnector } from "../connector";
import {
  bearerUsageRequest,
  connectionCredential,
  refreshableSpec,
  withToken,
} from "../connector-credential";
import type { ConnectorDeps, ConnectorSpec } from "../connector-spec";
import { refreshTokenRefresher } from "../oauth-refresh";
import { planForwardedHeaders, planInferenceRequest, planProtocol } from "../plan-request";
import { answerReaderWith } from "../read-signals";
import { classifyKimiFailure } from "./kimi-failure";
import { parseKimiUsage } from "./kimi-usage";

/** Kimi Code's OpenAI-compatible base. */
const KIMI_DEFAULT_BASE_URL = "https://api.kimi.com/coding/v1";

/** Kimi's auth server token endpoint (refresh_token grant, form-encoded). */
const KIMI_DEFAULT_TOKEN_URL = "https://auth.kimi.com/api/oauth/token";

/**
 * The public OAuth client Kimi Code CLI logins are issued to, as public documentation of its
 * login records it; a refresh must name it. Override with `clientId` if Kimi changes it.
 */
const KIMI_CODE_CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098";

/**
 * A Kimi Code plan: chat completions at `{baseUrl}/chat/completions` (or, with `protocol:
 * anthropic` and base `https://api.kimi.com/coding`, messages) with `Bearer`, either a
 * console API key (`credential: env:NAME`) or an OAuth login whose access token (about 15 min)
 * is refreshed with the refresh_token grant; every refresh rotates the refresh token, and the
 * new one replaces the old in persistence before it is used. Usage at
 * `{origin}/coding/v1/usages`. Answers carry the standard OpenAI-style signals (read by
 * quota-cache's generic parser); no paid-overage signal is known, so nothing is read as evidence.
 * Kimi admits only coding agents it recognises by User-Agent: its refusal of another client is
 * read as `client_refused` (see `classifyKimiFailure`).
 */
export function createKimiConnector(spec: ConnectorSpec, deps: ConnectorDeps): UpstreamConnector {
  const refreshable = refreshableSpec(spec);
  const tokenUrl = refreshable?.tokenUrl ?? KIMI_DEFAULT_TOKEN_URL;
  const clientId = refreshable?.clientId ?? KIMI_CODE_CLIENT_ID;
  const credential = connectionCredential(spec, deps, {
    refresher: refreshTokenRefresher({
      connectionId: spec.id,
      tokenUrl,
      clientId,
      encoding: "form",
      now: deps.now,
      missingRefreshToken: "the Kimi login has no refresh token",
    }),
  });
  const baseUrl = spec.baseUrl ?? KIMI_DEFAULT_BASE_URL;
  const protocol = planProtocol(spec);
  const keyAuth = credential.kind === "static" ? "x-api-key" : "bearer";
  const usageUrl = spec.usageUrl ?? `${new URL(baseUrl).origin}/coding/v1/usages`;
  return {
    provider: "kimi",
    protocol,
    forwardedClientHeaders: planForwardedHeaders(protocol),
    prepare(call) {
      return withToken(credential, (token) =>
        // A console key travels as x-api-key on the Anthropic endpoint (as the gateway always sent
        // it); an OAuth access token as Bearer.
        planInferenceRequest(spec, protocol, baseUrl, call, token, keyAuth),
      );
    },
    usageRequest: () => bearerUsageRequest(credential, usageUrl),
    readUsage: (payload, observedAtMs) => ({ windows: parseKimiUsage(payload, observedAtMs) }),
    // Its refusal of a client program that is not a coding agent is no fault of the connection.
    readResponse: answerReaderWith(parseGenericResponse, classifyKimiFailure),
    invalidateCredential: (token) => credential.invalidate(token),
  };
}
