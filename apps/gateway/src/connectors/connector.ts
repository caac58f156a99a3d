import type { ResponseInput, ResponseSignals, UsageSignals } from "@planfirst/quota-cache";
import packageJson from "../../package.json" with { type: "json" };
import type { BodyRules, ProtocolName } from "../protocols";

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
  // Into the object just parsed, which nothing else holds: no copy (AGENTS.md, "Hot paths").
  return JSON.stringify(Object.assign(JSON.parse(text) as Record<string, unknown>, fields));
}

/** The usage endpoint request of a connection. */
export interface UsageRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  /** JSON body of a POST (Gemini Code Assist `retrieveUserQuota` names the project). */
  body?: string;
}

/**
 * One upstream answer as its connector reads it: the status, the response headers, the body (the
 * error body's parsed JSON or its text; absent for a success, whose body goes to the client), the
 * instant it arrived (`observedAtMs`, epoch ms) and the upstream model the request named.
 */
export type UpstreamAnswer = ResponseInput;

/**
 * What a usage-endpoint payload says: its quota windows, overage evidence (ladder.md §14), and a
 * refusal the provider wrapped in a 2xx answer.
 */
export interface UsageReading extends UsageSignals {
  /**
   * The provider's code when it refused the key inside a 2xx answer (z.ai `{"code":401,
   * "success":false}` → `"401"`): the poller cools the connection as `auth_invalid`.
   */
  refusal?: string;
}

/**
 * One provider's knowledge: how to authenticate, where to send, which client identification it
 * forwards, and how to read everything the provider answers (responses, stream events, usage
 * payloads). The only place a provider is known: the gateway asks the connection's connector and
 * never branches on a provider id. Knows no client protocol beyond the wire it speaks upstream.
 */
export interface UpstreamConnector {
  /** Provider id (`codex`, `github-copilot`, `zai`…), for messages; nothing branches on it. */
  readonly provider: string;
  /** The wire it speaks upstream: the codec that encodes its bodies and reads its answers. */
  readonly protocol: ProtocolName;
  /**
   * Client identification headers (lower-case names) sent on upstream when the client sent them,
   * besides `user-agent`, which every connector forwards (else it sends planfirst's own): Codex
   * `originator`, Anthropic betas, an editor's Copilot headers. Routes keep only the headers some
   * connection's connector forwards.
   */
  readonly forwardedClientHeaders: readonly string[];
  /**
   * URL and headers of one call. Synchronous while the credential is a static key or a token still
   * valid (the hot path stays promise-free); a Promise while a token is loaded, refreshed or
   * exchanged. Rejects with a ConnectorError naming the connection, never a token.
   */
  prepare(call: ConnectorCall): PreparedRequest | Promise<PreparedRequest>;
  /** The usage endpoint request, or null when the provider has none. */
  usageRequest(): UsageRequest | null | Promise<UsageRequest | null>;
  /**
   * Everything one upstream answer says, success or failure, in one call: quota windows, the
   * failure when it was one, and overage evidence (Claude overage headers, Codex credits, a
   * metered key's billing). Total; cheap for a success with no quota headers (no header copy).
   * The gateway bounds the times it returns (quota-cache `boundSignals`) and reads a failure it
   * does not name from the bare status.
   */
  readResponse(answer: UpstreamAnswer): ResponseSignals;
  /** What a usage-endpoint payload says; `observedAtMs` epoch ms. Total. */
  readUsage(payload: unknown, observedAtMs: number): UsageReading;
  /**
   * True when the upstream only answers streamed completions (the Codex backend refuses
   * `stream: false`): for a whole (non-stream) completion the dispatcher asks it for a stream,
   * reads that to its end and answers the client whole. Sub-endpoints such as
   * `/responses/compact` are not completions and are sent as the client sent them.
   */
  readonly streamOnly?: boolean;
  /**
   * True when the provider takes a `prompt_cache_key` body field and routes by it (OpenAI, the
   * Codex backend): the dispatcher then sends one derived from the session when the client sent
   * none. Absent = false, because a strict server can refuse a field it does not know and turn a
   * cache hint into a failed request; the connection's `promptCacheKey` setting overrides it.
   */
  readonly acceptsPromptCacheKey?: boolean;
  /**
   * What the provider requires of every request body, whatever the client sent (the Codex
   * backend: `store: false` and an `instructions` string); see `BodyRules`. Absent = the body as
   * the leg built it.
   */
  readonly bodyRules?: BodyRules;
  /**
   * SSE event names of the provider's own that carry quota in the middle of a stream (Codex
   * `codex.rate_limits`); the stream path hands each such event to {@link readStreamEvent}.
   * Absent when the provider sends none, so other streams are not scanned.
   */
  readonly streamEvents?: readonly string[];
  /** Windows and evidence of one of {@link streamEvents} (`data` parsed JSON). Total. */
  readStreamEvent?(event: string, data: unknown, observedAtMs: number): UsageSignals;
  /** The upstream answered 401 to `token` (or to the current token when omitted): refresh once. */
  invalidateCredential(token?: string): void;
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
