import { createHmac, timingSafeEqual } from "node:crypto";
import type { ClientRole } from "../config/client-key-policy";

/**
 * Who a session belongs to: the client key's id, the connections it may use (null = all) and
 * its role (what it may see).
 */
interface SessionIdentity {
  id: string;
  connections: ReadonlySet<string> | null;
  role: ClientRole;
}

/** Name of the status page's session cookie. */
export const STATUS_COOKIE = "planfirst_status";

/** How long the session cookie lives: 30 days, in seconds. */
const STATUS_COOKIE_MAX_AGE_SEC = 30 * 86_400;

/**
 * Session tokens of the status page. A token is an HMAC of the client key under a fixed label,
 * so it survives a gateway restart (the page reconnects without a new login), changes when the
 * key changes, and is not the key: a stolen cookie opens the status page, never the
 * completion API, and the key itself is never written to a cookie, a URL or a log.
 */
export interface StatusSessions {
  /** The token of a key the verifier accepted. */
  tokenOf(key: string): string;
  /** The identity whose token the `cookie` header carries; null when none matches. */
  verifyCookie(cookieHeader: string | undefined): SessionIdentity | null;
}

/** Builds the session tokens of the configured client keys (computed once). */
export function createStatusSessions(
  keys: readonly {
    key: string;
    id: string;
    connections: ReadonlySet<string> | null;
    role: ClientRole;
  }[],
): StatusSessions {
  const entries = keys.map((key) => ({
    token: Buffer.from(tokenOf(key.key), "hex"),
    identity: {
      id: key.id,
      connections: key.connections,
      role: key.role,
    } satisfies SessionIdentity,
  }));
  return {
    tokenOf,
    verifyCookie(cookieHeader) {
      const presented = cookieValue(cookieHeader, STATUS_COOKIE);
      if (!presented || !/^[0-9a-f]{64}$/.test(presented)) return null;
      const candidate = Buffer.from(presented, "hex");
      let match: SessionIdentity | null = null;
      for (const entry of entries) {
        if (timingSafeEqual(candidate, entry.token) && match === null) match = entry.identity;
      }
      return match;
    },
  };
}

function tokenOf(key: string): string {
  return createHmac("sha256", key).update("planfirst status page session v1").digest("hex");
}

/** The value of cookie `name` in a `cookie` header, undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The `set-cookie` value that opens the status page: HttpOnly, SameSite=Strict, path `/`. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${STATUS_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${STATUS_COOKIE_MAX_AGE_SEC}${secure ? "; Secure" : ""}`;
}

/** The `set-cookie` value that ends the session. */
export function clearedSessionCookie(): string {
  return `${STATUS_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
