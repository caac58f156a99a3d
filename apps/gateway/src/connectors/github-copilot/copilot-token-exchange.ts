import { z } from "zod";
import { PLANFIRST_USER_AGENT } from "../connector";
import { ConnectorError } from "../connector-error";
import { callTokenEndpoint } from "../oauth-refresh";

/** GitHub's Copilot session token exchange. */
export const COPILOT_DEFAULT_TOKEN_URL = "https://api.github.com/copilot_internal/v2/token";

/** The exchange's answer: a session token and its expiry (epoch seconds). */
const copilotSessionTokenSchema = z.object({
  token: z.string().min(1),
  expires_at: z.number().int().positive(),
  /** Seconds after which GitHub suggests refreshing. */
  refresh_in: z.number().optional(),
  endpoints: z.object({ api: z.url().optional() }).partial().optional(),
});

/** A parsed session token answer; see {@link copilotSessionTokenSchema}. */
type CopilotSessionToken = z.infer<typeof copilotSessionTokenSchema>;

/**
 * Exchanges a GitHub OAuth token for a Copilot session token: `GET tokenUrl` with
 * `Authorization: token <github token>` (not Bearer). Errors name the connection and the status,
 * never a token.
 */
export async function exchangeCopilotToken(options: {
  connectionId: string;
  tokenUrl: string;
  githubToken: string;
  timeoutMs?: number;
}): Promise<CopilotSessionToken> {
  const where = `connection ${options.connectionId}: Copilot token exchange at ${options.tokenUrl}`;
  const { response, json } = await callTokenEndpoint({
    connectionId: options.connectionId,
    where,
    url: options.tokenUrl,
    init: {
      headers: {
        authorization: `token ${options.githubToken}`,
        accept: "application/json",
        "user-agent": PLANFIRST_USER_AGENT,
      },
    },
    timeoutMs: options.timeoutMs,
  });
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? ": the GitHub token was refused or has no Copilot seat"
        : "";
    throw new ConnectorError({
      code: "credential_refresh_failed",
      message: `${where} answered ${response.status}${hint}`,
      connectionId: options.connectionId,
      upstreamStatus: response.status,
    });
  }
  const parsed = copilotSessionTokenSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConnectorError({
      code: "credential_refresh_failed",
      message: `${where} answered ${response.status} without a session token`,
      connectionId: options.connectionId,
      upstreamStatus: response.status,
    });
  }
  return parsed.data;
}
