import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { json, type PlanRequest } from "./plan-route";
import type { IssuedTokens, TokenAuthority } from "./token-authority";

/** Knobs shared by the OAuth-backed fakes. */
export interface FakeOauthControls {
  /** POST target of the refresh_token grant. */
  tokenUrl: string;
  /** The client id the token endpoint accepts. */
  clientId: string;
  /** A fresh login (as an official CLI would have stored it). */
  issueLogin(): IssuedTokens;
  /** Revokes every access token so far: the next call with one is a 401. */
  expireAccessTokens(): void;
  /** Successful refreshes so far. */
  readonly refreshes: number;
  /** Token endpoint requests so far, successful or not. */
  readonly tokenRequests: number;
  /** Make the token endpoint refuse every refresh (`invalid_grant`). */
  failRefreshes(fail: boolean): void;
  /** Delay each token endpoint answer, ms (to hold concurrent refreshes in flight). */
  refreshDelayMs: number;
}

/** A fake token endpoint: its {@link FakeOauthControls} and its answer to a POST. */
interface FakeOauthEndpoint {
  /** The knobs; a provider's fake is this object with its own fields assigned onto it. */
  controls: FakeOauthControls;
  /** Answers a POST to the token URL: the JSON refresh_token grant with rotation. */
  refresh(request: PlanRequest, response: ServerResponse): Promise<void>;
}

/**
 * The token endpoint of an OAuth-backed plan fake over `authority`. A grant answers the rotated
 * pair with `grantFields` of it first (the fields that differ per provider); a wrong grant type
 * or client id is a 400 `invalid_request`, a stale refresh token a 400 `invalid_grant`.
 */
export function createOauthEndpoint(
  authority: TokenAuthority,
  tokenUrl: string,
  clientId: string,
  grantFields: (issued: IssuedTokens) => Record<string, unknown>,
): FakeOauthEndpoint {
  const counters = { tokenRequests: 0, failRefreshes: false };
  const controls = {
    tokenUrl,
    clientId,
    issueLogin: () => authority.issue(),
    expireAccessTokens: () => authority.expireAccessTokens(),
    get refreshes() {
      return authority.refreshes;
    },
    get tokenRequests() {
      return counters.tokenRequests;
    },
    failRefreshes(fail: boolean) {
      counters.failRefreshes = fail;
    },
    refreshDelayMs: 0,
  };

  async function refresh(request: PlanRequest, response: ServerResponse) {
    const { record, nowSec } = request;
    counters.tokenRequests += 1;
    if (controls.refreshDelayMs > 0) await sleep(controls.refreshDelayMs);
    if (record.grant_type !== "refresh_token" || record.client_id !== controls.clientId) {
      return json(response, 400, {
        error: "invalid_request",
        error_description: "unsupported grant or client",
      });
    }
    const issued =
      counters.failRefreshes || typeof record.refresh_token !== "string"
        ? null
        : authority.refresh(record.refresh_token);
    if (!issued) {
      return json(response, 400, {
        error: "invalid_grant",
        error_description: "refresh token is invalid, expired or already used",
      });
    }
    return json(response, 200, {
      ...grantFields(issued),
      access_token: issued.accessToken,
      refresh_token: issued.refreshToken,
      expires_in: issued.expiresAtSec - nowSec,
    });
  }

  return { controls, refresh };
}
