import type { UpstreamFailure } from "../upstream-failure";

/**
 * The failure a bare HTTP status means when no provider parser recognised the body: 401/403 →
 * `auth_invalid`, 402 → `credits_exhausted`, 429 → `rate_limited`, any other status from 400 up
 * → `overloaded`; no reset or retry instant is invented. Below 400 → undefined. Callers decide
 * first which statuses are the client's own fault (a 400 says nothing about the connection).
 */
export function failureOfStatus(status: number): UpstreamFailure | undefined {
  if (status < 400) return undefined;
  const code = String(status);
  if (status === 401 || status === 403) {
    return { kind: "auth_invalid", retryAt: null, resetAt: null, code };
  }
  if (status === 402) return { kind: "credits_exhausted", retryAt: null, resetAt: null, code };
  if (status === 429) return { kind: "rate_limited", retryAt: null, resetAt: null, code };
  return { kind: "overloaded", retryAt: null, resetAt: null, code };
}
