import type { WireProtocol } from "../protocols";
import type { UpstreamRequest } from "./upstream-client";

/** Anthropic API version header value sent on every Anthropic-protocol request. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Beta flag Anthropic requires for Claude Code OAuth bearer tokens. */
export const ANTHROPIC_OAUTH_BETA = "oauth-2025-04-20";

/** Where and how to reach one connection. */
export interface UpstreamTarget {
  /** Base URL from config (`https://api.anthropic.com`, `https://openrouter.ai/api/v1`). */
  baseUrl: string;
  protocol: WireProtocol;
  /** `oauth`, `apikey`, `none` (keyless) or a provider-specific value. */
  authType: string;
  /** The secret itself, already resolved; null for keyless connections. */
  credential: string | null;
  /** Extra headers from config; `anthropic-beta` values are merged with the OAuth beta. */
  headers?: Record<string, string>;
}

/** Options of {@link buildUpstreamRequest}. */
export interface BuildUpstreamRequestOptions {
  /** Whole request until response headers, milliseconds. */
  timeoutMs: number;
  /** Gap allowed between body chunks, milliseconds; default none. */
  idleTimeoutMs?: number;
  /** Sets `accept` to `text/event-stream` (true) or `application/json` (false); default both. */
  stream?: boolean;
  signal?: AbortSignal;
}

/** The completion endpoint of a connection: `/chat/completions` (OpenAI) or `/v1/messages` (Anthropic). */
export function upstreamUrl(baseUrl: string, protocol: WireProtocol): string {
  const base = baseUrl.replace(/\/+$/, "");
  if (protocol === "openai") return `${base}/chat/completions`;
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
}

function mergeBeta(existing: string | undefined, flag: string): string {
  if (!existing) return flag;
  const flags = existing.split(",").map((value) => value.trim());
  return flags.includes(flag) ? existing : `${existing},${flag}`;
}

/**
 * The request for one connection and an already serialised body: URL per protocol, JSON
 * content type, `accept`, config headers, `anthropic-version` on Anthropic, and auth per type:
 * OpenAI `Authorization: Bearer`; Anthropic API key `x-api-key`; Anthropic `oauth`
 * `Authorization: Bearer` plus `anthropic-beta: oauth-2025-04-20`; `none` (or no credential)
 * sends no auth header. Auth headers always win over config headers.
 */
export function buildUpstreamRequest(
  target: UpstreamTarget,
  body: string,
  options: BuildUpstreamRequestOptions,
): UpstreamRequest {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept:
      options.stream === undefined
        ? "application/json, text/event-stream"
        : options.stream
          ? "text/event-stream"
          : "application/json",
  };
  if (target.headers) {
    for (const [name, value] of Object.entries(target.headers)) headers[name.toLowerCase()] = value;
  }
  delete headers.authorization;
  delete headers["x-api-key"];
  if (target.protocol === "anthropic") headers["anthropic-version"] ??= ANTHROPIC_VERSION;
  const credential = target.authType === "none" ? null : target.credential;
  if (credential) {
    if (target.protocol === "openai") {
      headers.authorization = `Bearer ${credential}`;
    } else if (target.authType === "oauth") {
      headers.authorization = `Bearer ${credential}`;
      headers["anthropic-beta"] = mergeBeta(headers["anthropic-beta"], ANTHROPIC_OAUTH_BETA);
    } else {
      headers["x-api-key"] = credential;
    }
  }
  const request: UpstreamRequest = {
    url: upstreamUrl(target.baseUrl, target.protocol),
    headers,
    body,
    timeoutMs: options.timeoutMs,
  };
  if (options.idleTimeoutMs !== undefined) request.idleTimeoutMs = options.idleTimeoutMs;
  if (options.signal) request.signal = options.signal;
  return request;
}
