import {
  copilotUsageEvidence,
  parseCopilotQuota,
  parseCopilotResponse,
} from "@planfirst/quota-cache";
import { bodyObject, joinUrl, PLANFIRST_USER_AGENT, type UpstreamConnector } from "../connector";
import { connectionCredential, requireRefreshableSpec } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorDeps, ConnectorSpec } from "../connector-spec";
import { answerReader, usageReading } from "../read-signals";
import { baseRequestHeaders } from "../request-headers";
import { COPILOT_DEFAULT_TOKEN_URL, exchangeCopilotToken } from "./copilot-token-exchange";

/** GitHub's Copilot user endpoint: plan, `quota_snapshots` and `endpoints.api`. */
const COPILOT_DEFAULT_USER_URL = "https://api.github.com/copilot_internal/user";

/** Copilot session tokens are refreshed this long before `expires_at` (about 5 min, as GitHub's clients do). */
const COPILOT_REFRESH_SKEW_MS = 300_000;

/**
 * Client headers forwarded when the client sent them (an editor's own identification); planfirst
 * never invents an editor identity. Without them it names itself (see {@link copilotIdeHeaders}).
 */
const COPILOT_FORWARDED_HEADERS = [
  "editor-version",
  "editor-plugin-version",
  "copilot-integration-id",
] as const;

/**
 * `Copilot-Integration-Id` sent when neither the client nor the connection's `headers` set one.
 * The Copilot API only accepts integration ids GitHub has registered (any other is a 400 "unknown
 * Copilot-Integration-Id"), so planfirst cannot declare one of its own. GitHub's Copilot language
 * server, whose editor login `planfirst login import copilot` reads, declares this id for every
 * editor that is not VS Code, Visual Studio or a JetBrains IDE, beside that editor's own
 * `Editor-Version`; planfirst is such a caller and declares the same, naming itself in
 * `Editor-Version`. An operator whose token belongs to another integration sets
 * `headers: { copilot-integration-id: … }` on the connection.
 */
export const COPILOT_DEFAULT_INTEGRATION_ID = "jetbrains-chat";

/**
 * The IDE headers Copilot inference requires (a request without `Editor-Version` is refused):
 * the client's own when it sent them, the connection's configured `headers` over those, and
 * otherwise planfirst's own `Editor-Version: planfirst/<version>` and
 * {@link COPILOT_DEFAULT_INTEGRATION_ID}. Fills only what `headers` lacks.
 */
function copilotIdeHeaders(headers: Record<string, string>): Record<string, string> {
  headers["editor-version"] ||= PLANFIRST_USER_AGENT;
  headers["copilot-integration-id"] ||= COPILOT_DEFAULT_INTEGRATION_ID;
  return headers;
}

/** Midnight UTC on the 1st of the month after `nowMs`: the monthly reset of individual seats. */
export function nextMonthlyResetIso(nowMs: number): string {
  const now = new Date(nowMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

/**
 * A Copilot seat: the GitHub token is exchanged at `tokenUrl` for a session token (refreshed 5
 * min before `expires_at` and once on a 401, never sent anywhere but GitHub); chat completions at
 * `{baseUrl}/chat/completions` with the IDE headers of {@link copilotIdeHeaders}, the base from
 * config or else `copilot_internal/user` `endpoints.api`; quota from `quota_snapshots`; a 402
 * `quota_exceeded` is window exhaustion until the monthly reset (the usage payload's
 * `quota_reset_date`, else the 1st at 00:00 UTC); a refused IDE header is the connection's
 * misconfiguration. Answers and the user payload are read by quota-cache's Copilot parsers
 * (quota-signals.md §5, §15), `overage_permitted: true` as evidence `on` (intent is enough to be
 * unsafe for `auto/subscription`).
 */
export function createGithubCopilotConnector(
  spec: ConnectorSpec,
  deps: ConnectorDeps,
): UpstreamConnector {
  const refreshable = requireRefreshableSpec(
    spec,
    "Copilot needs credential { githubToken: env:NAME } or { login: NAME }",
  );
  const tokenUrl = refreshable.tokenUrl ?? COPILOT_DEFAULT_TOKEN_URL;
  const userUrl = spec.usageUrl ?? COPILOT_DEFAULT_USER_URL;
  const credential = connectionCredential(spec, deps, {
    defaultSkewMs: COPILOT_REFRESH_SKEW_MS,
    seedRefreshToken: refreshable.githubToken,
    refresher: async (current) => {
      if (!current.refreshToken) {
        throw new ConnectorError({
          code: "credential_refresh_failed",
          message: `connection ${spec.id}: no GitHub token to exchange; run planfirst login import copilot`,
          connectionId: spec.id,
        });
      }
      const session = await exchangeCopilotToken({
        connectionId: spec.id,
        tokenUrl,
        githubToken: current.refreshToken,
      });
      return {
        ...current,
        accessToken: session.token,
        expiresAtMs: session.expires_at * 1000,
        updatedAtMs: deps.now(),
      };
    },
  });
  let apiBase: string | null = spec.baseUrl ?? null;
  let discovering: Promise<string> | null = null;
  let resetAt: string | null = null;
  const read = answerReader(parseCopilotResponse);

  const learn = (payload: unknown) => {
    const record = bodyObject(payload);
    const api = bodyObject(record?.endpoints)?.api;
    if (!spec.baseUrl && typeof api === "string" && /^https?:\/\//.test(api)) apiBase = api;
    const reset = record?.quota_reset_date_utc ?? record?.quota_reset_date;
    if (typeof reset === "string" && !Number.isNaN(Date.parse(reset))) {
      resetAt = new Date(
        Date.parse(reset.length === 10 ? `${reset}T00:00:00Z` : reset),
      ).toISOString();
    }
  };

  async function userRequest() {
    const githubToken = await credential.longLivedSecret();
    if (!githubToken) {
      throw new ConnectorError({
        code: "credential_missing",
        message: `connection ${spec.id}: no GitHub token for the Copilot user endpoint`,
        connectionId: spec.id,
      });
    }
    return {
      url: userUrl,
      method: "GET" as const,
      headers: {
        accept: "application/json",
        authorization: `token ${githubToken}`,
        "user-agent": PLANFIRST_USER_AGENT,
      },
    };
  }

  function discoverApiBase(): Promise<string> {
    discovering ??= (async () => {
      const request = await userRequest();
      const response = await fetch(request.url, {
        headers: request.headers,
        signal: AbortSignal.timeout(15_000),
      }).catch(() => null);
      const text = response ? await response.text() : "";
      if (response?.ok) learn(bodyObject(text));
      if (!apiBase) {
        throw new ConnectorError({
          code: "endpoint_discovery_failed",
          message: `connection ${spec.id}: ${userUrl} ${response ? `answered ${response.status}` : "could not be reached"} without endpoints.api; set baseUrl`,
          connectionId: spec.id,
          ...(response ? { upstreamStatus: response.status } : {}),
        });
      }
      return apiBase;
    })().finally(() => {
      discovering = null;
    });
    return discovering;
  }

  return {
    provider: "github-copilot",
    protocol: "openai-chat",
    forwardedClientHeaders: COPILOT_FORWARDED_HEADERS,
    prepare(call) {
      const build = (base: string, token: string) => {
        const headers = copilotIdeHeaders(
          baseRequestHeaders(call, spec.headers, COPILOT_FORWARDED_HEADERS),
        );
        headers.authorization = `Bearer ${token}`;
        return { url: joinUrl(base, "/chat/completions"), headers };
      };
      const token = credential.peek();
      if (apiBase && token) return build(apiBase, token);
      return (async () => {
        const base = apiBase ?? (await discoverApiBase());
        return build(base, await credential.get());
      })();
    },
    usageRequest: () => userRequest(),
    readUsage(payload, observedAtMs) {
      learn(payload);
      return usageReading(
        parseCopilotQuota(payload, observedAtMs),
        copilotUsageEvidence(payload, observedAtMs),
      );
    },
    readResponse(answer) {
      const signals = read(answer);
      const failure = signals.failure;
      if (failure?.kind === "window_exhausted" && failure.code === "quota_exceeded") {
        // Premium requests come back at the monthly reset; without a reading, the 1st at 00:00 UTC.
        failure.resetAt ??= resetAt ?? nextMonthlyResetIso(answer.observedAtMs);
      }
      return signals;
    },
    invalidateCredential: (token) => credential.invalidate(token),
  };
}
