import type { UsageRequest } from "./connector";
import { ConnectorError } from "./connector-error";
import type { ConnectorDeps, ConnectorSpec, RefreshableCredentialSpec } from "./connector-spec";
import {
  type CredentialRefresher,
  type CredentialSource,
  createRefreshableCredential,
  createStaticCredential,
} from "./credential-source";

/** Persistence key of a connection's refreshable credential: its login, else its own id. */
function credentialKey(spec: ConnectorSpec): string {
  const credential = spec.credential;
  if (typeof credential === "object" && credential.login) return `login:${credential.login}`;
  return `connection:${spec.id}`;
}

/** The static secret of a connection, or null when it has none (keyless). */
export function staticSecret(spec: ConnectorSpec): string | null {
  return typeof spec.credential === "string" ? spec.credential : null;
}

/** The refreshable credential settings of a connection, or null when it is static or keyless. */
export function refreshableSpec(spec: ConnectorSpec): RefreshableCredentialSpec | null {
  return typeof spec.credential === "object" ? spec.credential : null;
}

/**
 * The connection's refreshable credential, for a connector that works only with a login;
 * throws ConnectorError `invalid_connector_config` saying what it `needs` otherwise.
 */
export function requireRefreshableSpec(
  spec: ConnectorSpec,
  needs: string,
): RefreshableCredentialSpec {
  const refreshable = refreshableSpec(spec);
  if (!refreshable) {
    throw new ConnectorError({
      code: "invalid_connector_config",
      message: `connection ${spec.id}: ${needs}`,
      connectionId: spec.id,
    });
  }
  return refreshable;
}

/**
 * The credential source of a connection: static for a string credential, refreshable (through
 * `refresher`) for an object one. `seedFields` are the non-secret fields the config supplies.
 */
export function connectionCredential(
  spec: ConnectorSpec,
  deps: ConnectorDeps,
  options: {
    refresher: CredentialRefresher;
    defaultSkewMs?: number;
    seedFields?: Record<string, string>;
    /** Seed expiry of the configured access token, epoch ms, when it can be read from it. */
    seedExpiresAtMs?: number | null;
    /** The seed's long-lived secret (refresh token; Copilot's GitHub token). */
    seedRefreshToken?: string | undefined;
  },
): CredentialSource {
  const secret = staticSecret(spec);
  if (secret !== null) return createStaticCredential(secret, options.seedFields);
  const refreshable = refreshableSpec(spec);
  if (!refreshable) {
    throw new ConnectorError({
      code: "credential_missing",
      message: `connection ${spec.id} (${spec.provider}) needs a credential`,
      connectionId: spec.id,
    });
  }
  return createRefreshableCredential({
    connectionId: spec.id,
    provider: spec.provider,
    key: credentialKey(spec),
    persistence: deps.persistence,
    refresh: options.refresher,
    now: deps.now,
    skewMs: deps.refreshSkewMs ?? options.defaultSkewMs ?? 60_000,
    seed: {
      accessToken: refreshable.accessToken ?? null,
      refreshToken: options.seedRefreshToken ?? refreshable.refreshToken ?? null,
      expiresAtMs: options.seedExpiresAtMs ?? null,
      fields: options.seedFields ?? {},
    },
  });
}

/** Resolves `prepare` synchronously when the token is at hand, else through `get()`. */
export function withToken<T>(
  credential: CredentialSource,
  build: (token: string) => T,
): T | Promise<T> {
  const token = credential.peek();
  if (token !== null) return build(token);
  return credential.get().then(build);
}

/**
 * A JSON `GET url` with the connection's token as `Bearer`, plus `extraHeaders` (read once the
 * token is at hand, so a header that cannot be built fails the request like the token would).
 */
export function bearerUsageRequest(
  credential: CredentialSource,
  url: string,
  extraHeaders?: () => Record<string, string>,
): UsageRequest | Promise<UsageRequest> {
  return withToken(credential, (token) => ({
    url,
    method: "GET" as const,
    headers: { accept: "application/json", authorization: `Bearer ${token}`, ...extraHeaders?.() },
  }));
}
