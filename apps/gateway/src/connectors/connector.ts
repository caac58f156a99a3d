import type { QuotaWindow, UpstreamFailure } from "@planfirst/quota-cache";
import packageJson from "../../package.json" with { type: "json" };

/** The wire a connector speaks upstream. */
export type ConnectorProtocol = "openai" | "anthropic" | "openai-responses" | "gemini";

/** What the dispatcher tells a connector about one upstream call. */
export interface ConnectorCall {
  /** Upstream model id. */
  model: string;
  stream: boolean;
  /**
   * Identification headers the client sent, lower-case (`user-agent`, `originator`,
   * `anthropic-beta`, `x-claude-code-session-id`…); forwarded where the connector allows.
   */
  clientHeaders?: Readonly<Record<string, string>>;
}

/** Where one call goes and the headers it needs (auth included); the body is the caller's. */
export interface PreparedRequest {
  url: string;
  headers: Record<string, string>;
  /**
   * Top-level fields the connector adds to the JSON body (Gemini Code Assist's `project`, known
   * only once `loadCodeAssist` answered); see {@link mergeBodyFields}.
   */
  bodyFields?: Readonly<Record<string, unknown>>;
}

/** A JSON object body text with `fields` added at the top level (they win over the body's own). */
export function mergeBodyFields(text: string, fields: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), ...fields });
}

/** The usage endpoint request of a connection. */
export interface UsageRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  /** JSON body of a POST (Gemini Code Assist `retrieveUserQuota` names the project). */
  body?: string;
}

/** A provider-specific reading of an error response, when the connector has one. */
export type ConnectorFailure = UpstreamFailure;

/**
 * One provider's knowledge: how to authenticate, where to send, how to read usage and what its
 * error codes mean. Knows no client protocol beyond the wire it speaks upstream.
 */
export interface UpstreamConnector {
  /** Provider id (`codex`, `github-copilot`, `zai`…); quota parsers are chosen by it. */
  readonly provider: string;
  readonly protocol: ConnectorProtocol;
  /**
   * The provider id whose quota-cache parser reads this connection's answers (headers and error
   * bodies, `parseResponseSignals`); absent = {@link provider}. A generic connector names its
   * protocol's family here (`anthropic`), since quota-cache reads an id it does not know as an
   * OpenAI-compatible server.
   */
  readonly signalsProvider?: string;
  /**
   * URL and headers of one call. Synchronous while the credential is a static key or a token still
   * valid (the hot path stays promise-free); a Promise while a token is loaded, refreshed or
   * exchanged. Rejects with a ConnectorError naming the connection, never a token.
   */
  prepare(call: ConnectorCall): PreparedRequest | Promise<PreparedRequest>;
  /** The usage endpoint request, or null when the provider has none. */
  usageRequest(): UsageRequest | null | Promise<UsageRequest | null>;
  /** Quota windows of a usage-endpoint payload; `observedAtMs` epoch ms. Pure and total. */
  parseUsage(payload: unknown, observedAtMs: number): QuotaWindow[];
  /**
   * The provider-specific meaning of an error response, or null to leave it to the generic
   * quota-cache parsers. `body` is the response text or parsed JSON. Pure and total.
   */
  classifyFailure(
    status: number,
    headers: Readonly<Record<string, string>>,
    body: unknown,
    observedAtMs: number,
  ): ConnectorFailure | null;
  /**
   * Reads billing evidence from the headers of any response, success or not (Codex
   * `x-codex-credits-*`, Claude overage headers); cheap, call it on every response.
   */
  observeHeaders(headers: Readonly<Record<string, string>>): void;
  /**
   * True when the upstream only answers streamed completions (the Codex backend refuses
   * `stream: false`): for a whole (non-stream) completion the dispatcher asks it for a stream,
   * reads that to its end and answers the client whole. Sub-endpoints such as
   * `/responses/compact` are not completions and are sent as the client sent them.
   */
  readonly streamOnly?: boolean;
  /**
   * SSE event names of the provider's own that carry quota in the middle of a stream (Codex
   * `codex.rate_limits`); the stream path hands each such event to {@link parseStreamEvent}.
   * Absent when the provider sends none, so other streams are not scanned.
   */
  readonly streamEvents?: readonly string[];
  /** Quota windows of one of {@link streamEvents} (`data` parsed JSON). Pure and total. */
  parseStreamEvent?(event: string, data: unknown, observedAtMs: number): QuotaWindow[];
  /** The upstream answered 401 to `token` (or to the current token when omitted): refresh once. */
  invalidateCredential(token?: string): void;
  /**
   * True when the plan is known to bill after its window (Codex credits, Copilot overage): such a
   * connection is not `auto/subscription`-safe. Null when the provider has said nothing yet.
   */
  billsAfterWindow(): boolean | null;
}

/**
 * planfirst's own identity to a provider, `planfirst/<version>` with the gateway's package.json
 * version (bundled at build time): the User-Agent when the client did not identify itself, and
 * wherever a provider asks the caller to name its software (Copilot's `Editor-Version`).
 */
export const PLANFIRST_USER_AGENT = `planfirst/${packageJson.version}`;

/**
 * Identification headers for an upstream call: the client's own `user-agent` and the listed
 * extra headers when the client sent them, else planfirst's own User-Agent. Never invents another
 * client's identity.
 */
export function identityHeaders(
  call: ConnectorCall,
  forwarded: readonly string[] = [],
): Record<string, string> {
  const client = call.clientHeaders ?? {};
  const headers: Record<string, string> = {
    "user-agent": client["user-agent"] || PLANFIRST_USER_AGENT,
  };
  for (const name of forwarded) {
    const value = client[name];
    if (value) headers[name] = value;
  }
  return headers;
}

/** `base` without trailing slashes followed by `path`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** Header map with lower-case names. */
export function lowerCaseHeaders(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** A JSON body given as text or already parsed, as an object; anything else as null. Total. */
export function bodyObject(body: unknown): Record<string, unknown> | null {
  let value = body;
  if (typeof body === "string") {
    const text = body.trim();
    if (!text.startsWith("{") || text.length > 1_000_000) return null;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
