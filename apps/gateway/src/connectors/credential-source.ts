import { ConnectorError } from "./connector-error";
import type { CredentialPersistence, StoredCredential } from "./credential-persistence";

/**
 * The secret a connector authenticates with. `peek()` is synchronous so a static key (or a token
 * still valid) keeps the hot path free of promises; `get()` refreshes when needed.
 */
export interface CredentialSource {
  /** `static` for an `env:` value, `refreshable` for an exchanged or refreshed token. */
  readonly kind: "static" | "refreshable";
  /** The token when it can be used now without I/O, else null (not loaded, expired, refused). */
  peek(): string | null;
  /** The token, loading it from persistence and refreshing it first when it is due. */
  get(): Promise<string>;
  /** A non-secret field of the credential (`accountId`, `apiBase`, `project`…), when known. */
  field(name: string): string | undefined;
  /**
   * Keeps a non-secret field the provider told us (Code Assist's `project`) with the credential:
   * written to persistence with a refreshable one, so a restart or another replica reads it
   * instead of asking the provider again; in process memory for a static one. Rejects when
   * persistence cannot be written (the field is still kept in memory).
   */
  rememberField(name: string, value: string): Promise<void>;
  /**
   * The long-lived secret behind the token (a refresh token; for Copilot the GitHub token), for
   * the few endpoints that take it directly; the static value for a static credential.
   */
  longLivedSecret(): Promise<string | null>;
  /**
   * The upstream refused `token` (a 401): the next `get()` refreshes once. A token other than the
   * current one (already replaced) is ignored, so concurrent 401s cause one refresh.
   */
  invalidate(token?: string): void;
}

/** A credential that never changes: an `env:` value, resolved once at start. */
export function createStaticCredential(
  value: string,
  fields: Readonly<Record<string, string>> = {},
): CredentialSource {
  const learnt = new Map<string, string>();
  return {
    kind: "static",
    peek: () => value,
    get: async () => value,
    field: (name) => learnt.get(name) ?? fields[name],
    async rememberField(name, fieldValue) {
      learnt.set(name, fieldValue);
    },
    longLivedSecret: async () => value,
    invalidate() {
      // A static key cannot be renewed; the dispatcher cools the connection as auth_invalid.
    },
  };
}

/**
 * Exchanges or refreshes a credential: receives the current stored value, resolves with the
 * replacement (a rotated refresh token replaces the old one). Throws {@link ConnectorError} with
 * code `credential_refresh_failed` and never a token in its message.
 */
export type CredentialRefresher = (current: StoredCredential) => Promise<StoredCredential>;

/** Options of {@link createRefreshableCredential}. */
interface RefreshableCredentialOptions {
  /** Connection named in errors. */
  connectionId: string;
  /** Provider recorded with the stored credential. */
  provider: string;
  /** Persistence key: `login:<name>` for an imported login, else `connection:<id>`. */
  key: string;
  persistence: CredentialPersistence;
  refresh: CredentialRefresher;
  /**
   * Seed from the config (`env:` values) used when persistence holds nothing under `key`. A stored
   * value wins over the seed: it carries the latest rotated refresh token.
   */
  seed?: {
    accessToken?: string | null;
    expiresAtMs?: number | null;
    refreshToken?: string | null;
    fields?: Record<string, string>;
  };
  /** Clock, epoch ms. */
  now: () => number;
  /** Refresh this long before `expiresAtMs`, ms; default 60 000. */
  skewMs?: number;
}

/**
 * A refreshable token: loaded from persistence (else the seed) on first use, refreshed
 * single-flight when it is within `skewMs` of its expiry or was refused by a 401, and every
 * refreshed value written back to persistence. Before refreshing it re-reads persistence, so a
 * token another replica already refreshed is adopted instead of rotating the refresh token twice.
 */
export function createRefreshableCredential(
  options: RefreshableCredentialOptions,
): CredentialSource {
  const skewMs = options.skewMs ?? 60_000;
  let state: StoredCredential | null = null;
  let refused = false;
  let loading: Promise<StoredCredential> | null = null;
  let refreshing: Promise<StoredCredential> | null = null;
  // Fields learnt from the provider, merged into every value kept, so a refresh that began
  // before one was learnt cannot write the credential back without it.
  const learnt: Record<string, string> = {};
  const withLearnt = (credential: StoredCredential): StoredCredential =>
    Object.keys(learnt).every((name) => credential.fields[name] === learnt[name])
      ? credential
      : { ...credential, fields: { ...credential.fields, ...learnt } };

  const isDue = (credential: StoredCredential): boolean =>
    credential.accessToken === null ||
    (credential.expiresAtMs !== null && credential.expiresAtMs - skewMs <= options.now());

  const missing = () =>
    new ConnectorError({
      code: "credential_missing",
      message: `connection ${options.connectionId} has no stored login under ${options.key} and no credential in its config`,
      connectionId: options.connectionId,
    });

  async function load(): Promise<StoredCredential> {
    if (state) return state;
    loading ??= (async () => {
      const stored = await options.persistence.read(options.key);
      if (stored) return stored;
      const seed = options.seed;
      if (!seed || (!seed.accessToken && !seed.refreshToken)) throw missing();
      return {
        provider: options.provider,
        accessToken: seed.accessToken ?? null,
        expiresAtMs: seed.expiresAtMs ?? null,
        refreshToken: seed.refreshToken ?? null,
        fields: { ...seed.fields },
        updatedAtMs: options.now(),
      };
    })().finally(() => {
      loading = null;
    });
    state = await loading;
    return state;
  }

  async function refresh(current: StoredCredential): Promise<StoredCredential> {
    refreshing ??= (async () => {
      const stored = await options.persistence.read(options.key);
      if (stored?.accessToken && stored.accessToken !== current.accessToken && !isDue(stored)) {
        return stored;
      }
      const base = stored && stored.updatedAtMs > current.updatedAtMs ? stored : current;
      let next: StoredCredential;
      try {
        next = withLearnt(await options.refresh(base));
      } catch (error) {
        if (ConnectorError.isInstance(error)) throw error;
        throw new ConnectorError({
          code: "credential_refresh_failed",
          message: `connection ${options.connectionId}: the credential refresh failed`,
          connectionId: options.connectionId,
        });
      }
      await options.persistence.write(options.key, next);
      return next;
    })().finally(() => {
      refreshing = null;
    });
    const next = withLearnt(await refreshing);
    state = next;
    refused = false;
    return next;
  }

  return {
    kind: "refreshable",
    peek() {
      if (!state || refused || refreshing || isDue(state)) return null;
      return state.accessToken;
    },
    async get() {
      let current = await load();
      if (refused || isDue(current)) current = await refresh(current);
      if (!current.accessToken) throw missing();
      return current.accessToken;
    },
    field(name) {
      return learnt[name] ?? state?.fields[name] ?? options.seed?.fields?.[name];
    },
    async rememberField(name, value) {
      learnt[name] = value;
      const current = await load();
      if (current.fields[name] === value) return;
      state = { ...withLearnt(current), updatedAtMs: options.now() };
      await options.persistence.write(options.key, state);
    },
    async longLivedSecret() {
      return (await load()).refreshToken;
    },
    invalidate(token) {
      if (!state) return;
      if (token !== undefined && token !== state.accessToken) return;
      refused = true;
    },
  };
}
