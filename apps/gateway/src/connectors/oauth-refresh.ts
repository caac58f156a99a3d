import { z } from "zod";
import { ConnectorError } from "./connector-error";
import type { CredentialRefresher } from "./credential-source";

/** The token endpoint's answer to a refresh_token grant (RFC 6749 §5.1). */
const oauthTokenResponseSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  id_token: z.string().min(1).optional(),
  /** Seconds from now. */
  expires_in: z.coerce.number().positive().optional(),
  token_type: z.string().optional(),
});

/** A parsed refresh_token grant answer; see {@link oauthTokenResponseSchema}. */
type OauthTokenResponse = z.infer<typeof oauthTokenResponseSchema>;

/** Options of {@link refreshTokenGrant}. */
interface RefreshTokenGrantOptions {
  connectionId: string;
  tokenUrl: string;
  clientId: string;
  /** Sent as `client_secret` when set (Google's installed-app clients need it). */
  clientSecret?: string;
  refreshToken: string;
  /** `json` (OpenAI's auth server) or `form` (RFC 6749 `application/x-www-form-urlencoded`). */
  encoding: "json" | "form";
  /** Extra non-secret headers (User-Agent). */
  headers?: Record<string, string>;
  /** Whole request, ms; default 15 000. */
  timeoutMs?: number;
}

const OAUTH_ERROR_CODE = /^[a-z_]{1,64}$/;

/**
 * Performs an OAuth refresh_token grant. On a refusal the error names the connection, the
 * endpoint, the status and the OAuth `error` code (`invalid_grant`…) when it is a plain
 * identifier; never a token and never the raw body.
 */
export async function refreshTokenGrant(
  options: RefreshTokenGrantOptions,
): Promise<OauthTokenResponse> {
  const fields = {
    grant_type: "refresh_token",
    refresh_token: options.refreshToken,
    client_id: options.clientId,
    ...(options.clientSecret ? { client_secret: options.clientSecret } : {}),
  };
  const body =
    options.encoding === "json" ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  const where = `connection ${options.connectionId}: token refresh at ${options.tokenUrl}`;
  const { response, json } = await callTokenEndpoint({
    connectionId: options.connectionId,
    where,
    url: options.tokenUrl,
    init: {
      method: "POST",
      headers: {
        "content-type":
          options.encoding === "json" ? "application/json" : "application/x-www-form-urlencoded",
        accept: "application/json",
        ...options.headers,
      },
      body,
    },
    timeoutMs: options.timeoutMs,
  });
  if (!response.ok) {
    const code = oauthErrorCode(json);
    throw new ConnectorError({
      code: "credential_refresh_failed",
      message: `${where} answered ${response.status}${code ? ` (${code})` : ""}`,
      connectionId: options.connectionId,
      upstreamStatus: response.status,
    });
  }
  const parsed = oauthTokenResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConnectorError({
      code: "credential_refresh_failed",
      message: `${where} answered ${response.status} without an access_token`,
      connectionId: options.connectionId,
      upstreamStatus: response.status,
    });
  }
  return parsed.data;
}

/** Options of {@link refreshTokenRefresher}. */
interface RefreshTokenRefresherOptions extends Omit<RefreshTokenGrantOptions, "refreshToken"> {
  /** Injected clock (epoch ms). */
  now: () => number;
  /** Why there is nothing to refresh, for the error when the login has no refresh token. */
  missingRefreshToken: string;
  /** Expiry of a new access token whose answer has no `expires_in`; default unknown (null). */
  expiryWithoutExpiresIn?: (accessToken: string) => number | null;
}

/**
 * A credential refresher that spends the stored refresh token on a refresh_token grant and keeps
 * what the endpoint answers: the new access token, its expiry, and the rotated refresh token when
 * one came back (else the old one, which stays valid on servers that do not rotate).
 */
export function refreshTokenRefresher(options: RefreshTokenRefresherOptions): CredentialRefresher {
  const { now, missingRefreshToken, expiryWithoutExpiresIn, ...grant } = options;
  return async (current) => {
    if (!current.refreshToken) {
      throw new ConnectorError({
        code: "credential_refresh_failed",
        message: `connection ${grant.connectionId}: ${missingRefreshToken}`,
        connectionId: grant.connectionId,
      });
    }
    const answer = await refreshTokenGrant({ ...grant, refreshToken: current.refreshToken });
    const expiresAtMs = answer.expires_in
      ? now() + answer.expires_in * 1000
      : (expiryWithoutExpiresIn?.(answer.access_token) ?? null);
    return {
      ...current,
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? current.refreshToken,
      expiresAtMs,
      updatedAtMs: now(),
    };
  };
}

/**
 * One call to a token endpoint (`where` names it in errors): the response and its body as JSON
 * (undefined when it is not JSON). An unreachable endpoint, or one slower than `timeoutMs`
 * (default 15 000), is `credential_refresh_failed` naming only the error's kind, never a token.
 */
export async function callTokenEndpoint(options: {
  connectionId: string;
  where: string;
  url: string;
  init: Omit<RequestInit, "signal">;
  timeoutMs?: number | undefined;
}): Promise<{ response: Response; json: unknown }> {
  let response: Response;
  try {
    response = await fetch(options.url, {
      ...options.init,
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (error) {
    throw new ConnectorError({
      code: "credential_refresh_failed",
      message: `${options.where} could not be reached (${error instanceof Error ? error.name : "error"})`,
      connectionId: options.connectionId,
    });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { response, json };
}

function oauthErrorCode(json: unknown): string | null {
  if (typeof json !== "object" || json === null) return null;
  const error = (json as Record<string, unknown>).error;
  const code =
    typeof error === "string"
      ? error
      : typeof error === "object" && error !== null
        ? (error as Record<string, unknown>).code
        : undefined;
  return typeof code === "string" && OAUTH_ERROR_CODE.test(code) ? code : null;
}

/**
 * The `exp` claim of a JWT as epoch ms, or null when the token is not a JWT or has none. Reads
 * the claim only; the signature is the upstream's business.
 */
export function jwtExpiryMs(token: string): number | null {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    const exp = (claims as Record<string, unknown> | null)?.exp;
    return typeof exp === "number" && Number.isFinite(exp) ? Math.round(exp * 1000) : null;
  } catch {
    return null;
  }
}
