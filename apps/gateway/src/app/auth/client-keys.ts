import { createHash, timingSafeEqual } from "node:crypto";
import type { ResolvedClientKey } from "../../config/secrets";
import type { ClientIdentity } from "../../routing/client-identity";

export type { ClientIdentity };

/**
 * The identity used when the server has no client keys (loopback only): whoever can reach a
 * loopback-only gateway runs it, so it is an admin.
 */
export const ANONYMOUS_CLIENT: ClientIdentity = {
  id: "anonymous",
  connections: null,
  role: "admin",
  budget: null,
  limits: null,
};

/**
 * Checks presented keys against the configured ones. Every configured key is compared (digests
 * of equal length, `timingSafeEqual`), so the time taken does not reveal which key or how much
 * of it matched.
 */
export interface ClientKeyVerifier {
  /** True when no keys are configured: every request is `ANONYMOUS_CLIENT`. */
  readonly open: boolean;
  /** The identity of the key in `authorization: Bearer KEY` or `x-api-key: KEY`; null = refused. */
  verify(
    authorization: string | undefined,
    apiKeyHeader: string | undefined,
  ): ClientIdentity | null;
}

/** Builds a verifier over the resolved client keys (digests computed once). */
export function createClientKeyVerifier(keys: readonly ResolvedClientKey[]): ClientKeyVerifier {
  const entries = keys.map((key) => ({
    digest: digest(key.key),
    identity: {
      id: key.id,
      connections: key.connections,
      role: key.role,
      budget: key.budget,
      limits: key.limits,
    } satisfies ClientIdentity,
  }));
  return {
    open: entries.length === 0,
    verify(authorization, apiKeyHeader) {
      if (entries.length === 0) return ANONYMOUS_CLIENT;
      let presented: string | undefined;
      if (authorization && authorization.length > 7 && /^bearer /i.test(authorization)) {
        presented = authorization.slice(7).trim();
      } else if (apiKeyHeader) {
        presented = apiKeyHeader.trim();
      }
      if (!presented) return null;
      const candidate = digest(presented);
      let match: ClientIdentity | null = null;
      for (const entry of entries) {
        if (timingSafeEqual(candidate, entry.digest) && match === null) match = entry.identity;
      }
      return match;
    },
  };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
