import { parseCodeAssistQuota, parseGeminiResponse } from "@planfirst/quota-cache";
import type { PreparedRequest, UpstreamConnector, UsageRequest } from "../connector";
import { connectionCredential, requireRefreshableSpec } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorDeps, ConnectorSpec } from "../connector-spec";
import type { CredentialRefresher } from "../credential-source";
import { refreshTokenGrant } from "../oauth-refresh";
import { answerReader } from "../read-signals";
import { baseRequestHeaders } from "../request-headers";
import type { CodeAssistEndpoint } from "./code-assist-api";
import { DEFAULT_ONBOARDING_POLL } from "./code-assist-onboarding";
import { codeAssistProject } from "./code-assist-project";

/** The Code Assist API: POST `{base}:generateContent`, `:streamGenerateContent?alt=sse`, … */
const CODE_ASSIST_DEFAULT_BASE_URL = "https://cloudcode-pa.googleapis.com/v1internal";

/** Google's OAuth token endpoint (refresh_token grant, form body). */
const GOOGLE_DEFAULT_TOKEN_URL = "https://oauth2.googleapis.com/token";

/**
 * The public OAuth client id the Gemini CLI's "Login with Google" tokens are issued to
 * (google-gemini/gemini-cli `code_assist/oauth2.ts`); a refresh must name the client its refresh
 * token belongs to. Override with `clientId`. Its installed-app secret is read from the stored
 * login's `clientSecret` field and never kept in this repository.
 */
const GEMINI_CLI_CLIENT_ID =
  "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com";

/**
 * A Google refresh_token grant: form body with `client_id` and, when the stored login or the
 * config (`credential.clientSecret`) has one, `client_secret` (the stored login's wins). Google
 * keeps the refresh token (its answer carries none), so the old one stays.
 */
function googleRefresher(
  spec: ConnectorSpec,
  deps: ConnectorDeps,
  tokenUrl: string,
  clientId: string,
  configuredSecret: string | undefined,
): CredentialRefresher {
  return async (current) => {
    if (!current.refreshToken) {
      throw new ConnectorError({
        code: "credential_refresh_failed",
        message: `connection ${spec.id}: the Google login has no refresh token; run planfirst login import gemini`,
        connectionId: spec.id,
      });
    }
    const clientSecret = current.fields.clientSecret ?? configuredSecret;
    const answer = await refreshTokenGrant({
      connectionId: spec.id,
      tokenUrl,
      clientId: current.fields.clientId ?? clientId,
      ...(clientSecret ? { clientSecret } : {}),
      refreshToken: current.refreshToken,
      encoding: "form",
    });
    return {
      ...current,
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? current.refreshToken,
      expiresAtMs: answer.expires_in ? deps.now() + answer.expires_in * 1000 : null,
      updatedAtMs: deps.now(),
    };
  };
}

/**
 * A Gemini Code Assist login ("Login with Google", the Gemini CLI's free tier, Google AI Pro or
 * Ultra, Code Assist Standard or Enterprise). The Google access token is refreshed before expiry
 * and once on a 401. The Code Assist project is the stored login's `project` field; else it is
 * asked of `:loadCodeAssist` (a login that never set Code Assist up is onboarded to its default
 * tier first, `deps.onboardingPoll` bounding the wait), once for all concurrent requests, and
 * kept in the stored login so a restart asks neither again. It rides in every body as
 * `project`. Generation at
 * `{baseUrl}:generateContent` or `:streamGenerateContent?alt=sse` (the `gemini` codec); quota
 * per model from `:retrieveUserQuota`; 429 `RESOURCE_EXHAUSTED`, 403 `VALIDATION_REQUIRED` and
 * the rest read by quota-cache's Gemini parser (quota-signals.md §6b).
 */
export function createGeminiCodeAssistConnector(
  spec: ConnectorSpec,
  deps: ConnectorDeps,
): UpstreamConnector {
  const refreshable = requireRefreshableSpec(
    spec,
    "Gemini Code Assist needs credential { refreshToken: env:NAME } or { login: NAME }",
  );
  const tokenUrl = refreshable.tokenUrl ?? GOOGLE_DEFAULT_TOKEN_URL;
  const clientId = refreshable.clientId ?? GEMINI_CLI_CLIENT_ID;
  const credential = connectionCredential(spec, deps, {
    refresher: googleRefresher(spec, deps, tokenUrl, clientId, refreshable.clientSecret),
  });
  const baseUrl = (spec.baseUrl ?? CODE_ASSIST_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const usageUrl = spec.usageUrl ?? `${baseUrl}:retrieveUserQuota`;
  const endpoint: CodeAssistEndpoint = {
    connectionId: spec.id,
    baseUrl,
    headers: baseRequestHeaders({ model: "", stream: false }, spec.headers),
  };
  const poll = deps.onboardingPoll ?? DEFAULT_ONBOARDING_POLL;
  let discovering: Promise<string> | null = null;

  const knownProject = (): string | null => credential.field("project") ?? null;

  const projectOf = async (token: string): Promise<string> => {
    const known = knownProject();
    if (known) return known;
    // Concurrent first requests share one discovery: a login is onboarded once.
    discovering ??= (async () => {
      let project: string;
      try {
        project = await codeAssistProject(endpoint, token, poll);
      } catch (error) {
        // A token refused here is refreshed once, as on any other call.
        if (!ConnectorError.isInstance(error) || error.upstreamStatus !== 401) throw error;
        credential.invalidate(token);
        project = await codeAssistProject(endpoint, await credential.get(), poll);
      }
      await credential.rememberField("project", project);
      return project;
    })().finally(() => {
      discovering = null;
    });
    return discovering;
  };

  /**
   * `build` with the access token and the login's project: at once when both are known (no
   * promise on a request's path), else once the token is fresh and the project discovered.
   */
  const withTokenAndProject = <T>(
    build: (token: string, projectId: string) => T,
  ): T | Promise<T> => {
    const token = credential.peek();
    const known = knownProject();
    if (token !== null && known !== null) return build(token, known);
    return (async () => {
      const fresh = await credential.get();
      return build(fresh, await projectOf(fresh));
    })();
  };

  return {
    provider: "gemini-code-assist",
    protocol: "gemini",
    forwardedClientHeaders: [],
    prepare(call) {
      const build = (token: string, projectId: string): PreparedRequest => {
        const headers = baseRequestHeaders(call, spec.headers);
        headers.authorization = `Bearer ${token}`;
        const url = call.stream
          ? `${baseUrl}:streamGenerateContent?alt=sse`
          : `${baseUrl}:generateContent`;
        return { url, headers, bodyFields: { project: projectId } };
      };
      return withTokenAndProject(build);
    },
    usageRequest() {
      const build = (token: string, projectId: string): UsageRequest => ({
        url: usageUrl,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ project: projectId }),
      });
      return withTokenAndProject(build);
    },
    // Nothing Code Assist answers says whether use past the quota is billed: no evidence.
    readUsage: (payload, observedAtMs) => ({
      windows: parseCodeAssistQuota(payload, observedAtMs),
    }),
    readResponse: answerReader(parseGeminiResponse),
    invalidateCredential: (token) => credential.invalidate(token),
  };
}
