import { randomBytes } from "node:crypto";

/** A pair a token endpoint hands out. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch seconds at which the access token expires. */
  expiresAtSec: number;
}

/** Options of {@link createTokenAuthority}. */
export interface TokenAuthorityOptions {
  /** Prefix of every token, so tests can tell providers apart. */
  prefix: string;
  /** Clock, epoch ms. */
  now: () => number;
  /** Life of an access token, seconds. */
  accessTokenTtlSec: number;
  /** Access tokens as JWTs with these claims plus `exp` (Codex reads `exp`). */
  jwtClaims?: Record<string, unknown>;
}

/**
 * The fake's side of OAuth: issues access/refresh pairs, rotates the refresh token on every
 * refresh (the old one stops working), and refuses access tokens that expired or were revoked.
 */
export interface TokenAuthority {
  issue(): IssuedTokens;
  /** A new pair for a live refresh token (which is then revoked), else null. */
  refresh(refreshToken: string): IssuedTokens | null;
  /** True while `accessToken` was issued, not revoked and not expired by the clock. */
  accepts(accessToken: string): boolean;
  /** Revokes every access token issued so far (a server-side expiry); refresh tokens stay live. */
  expireAccessTokens(): void;
  /** Successful refreshes so far. */
  readonly refreshes: number;
}

function randomPart(): string {
  return randomBytes(12).toString("base64url");
}

/** Builds a {@link TokenAuthority}. */
export function createTokenAuthority(options: TokenAuthorityOptions): TokenAuthority {
  const access = new Map<string, number>();
  const refreshTokens = new Set<string>();
  let refreshes = 0;

  function accessToken(expiresAtSec: number): string {
    if (!options.jwtClaims) return `${options.prefix}-at-${randomPart()}`;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    return `${encode({ alg: "none", typ: "JWT" })}.${encode({ ...options.jwtClaims, exp: expiresAtSec, jti: randomPart() })}.${options.prefix}`;
  }

  function issue(): IssuedTokens {
    const expiresAtSec = Math.floor(options.now() / 1000) + options.accessTokenTtlSec;
    const tokens = {
      accessToken: accessToken(expiresAtSec),
      refreshToken: `${options.prefix}-rt-${randomPart()}`,
      expiresAtSec,
    };
    access.set(tokens.accessToken, expiresAtSec);
    refreshTokens.add(tokens.refreshToken);
    return tokens;
  }

  return {
    issue,
    refresh(refreshToken) {
      if (!refreshTokens.delete(refreshToken)) return null;
      refreshes += 1;
      return issue();
    },
    accepts(token) {
      const expiresAtSec = access.get(token);
      return expiresAtSec !== undefined && expiresAtSec * 1000 > options.now();
    },
    expireAccessTokens() {
      access.clear();
    },
    get refreshes() {
      return refreshes;
    },
  };
}
