import * as crypto from "node:crypto";
import type { ConversationOpening } from "../protocols";

/** Request headers that name a session, lower case, in the order they are tried. */
export const SESSION_HEADERS = [
  "x-claude-code-session-id",
  "session_id",
  "x-session-affinity",
] as const;

/** The header names of {@link SESSION_HEADERS}. */
type SessionHeaderName = (typeof SESSION_HEADERS)[number];

/** The session headers a request carried, by lower-case name. */
export type SessionHeaders = Readonly<Partial<Record<SessionHeaderName, string>>>;

/** Where a session key came from. */
export type SessionKeySource =
  | "x-claude-code-session-id"
  | "session_id"
  | "prompt_cache_key"
  | "metadata.user_id"
  | "x-session-affinity"
  | "conversation";

/**
 * The session of one request, as routing uses it: only the hash is ever stored or shown; the
 * value it came from (a client's session id, a prompt) is not kept.
 */
export interface SessionKey {
  /** {@link SESSION_HASH_CHARS} lower-case hex characters of a SHA-256. */
  readonly hash: string;
  readonly source: SessionKeySource;
  /**
   * True for a key derived from the conversation itself (no client-sent id) on the
   * conversation's first turn: that request is a new conversation whatever another one with the
   * same opening pinned, so it follows the ladder's order; it still pins where it is served.
   */
  readonly opening: boolean;
}

/** What {@link sessionKeyOf} reads of one request. */
export interface SessionKeyInput {
  /** Session headers the client sent (see {@link SESSION_HEADERS}), lower-case names. */
  readonly headers: SessionHeaders | undefined;
  /** The parsed client body. */
  readonly body: Readonly<Record<string, unknown>>;
  /** The client key's id: two keys never share a session, whatever ids their clients send. */
  readonly clientId: string;
  /**
   * The conversation's opening, each text cut to `maxChars` (the client protocol's codec reads
   * it); called only when nothing the client sent names the session.
   */
  opening(maxChars: number): ConversationOpening | null;
}

/** The session headers present in a header lookup; undefined when there are none. */
export function pickSessionHeaders(
  header: (name: string) => string | undefined,
): SessionHeaders | undefined {
  let picked: Partial<Record<SessionHeaderName, string>> | undefined;
  for (const name of SESSION_HEADERS) {
    const value = header(name);
    if (value === undefined || value === "") continue;
    picked ??= {};
    picked[name] = value;
  }
  return picked;
}

/**
 * The key a session's pin is kept under for one requested model id: a session pins per id, so a
 * client's side requests to another model (Claude Code's small fast model) never move the pin
 * of its main conversation, whose prompt cache is that model's.
 */
export function pinKeyOf(sessionHash: string, modelId: string): string {
  return `${sessionHash} ${modelId}`;
}

/** The `prompt_cache_key` sent upstream for a session that did not name one itself. */
export function promptCacheKeyOf(sessionHash: string): string {
  return `planfirst-${sessionHash}`;
}

/** Length of a session hash in hex characters (64 bits of the SHA-256). */
const SESSION_HASH_CHARS = 16;

/**
 * How much of the system prompt and of the first user message the fallback hashes, in UTF-16
 * code units each: enough to tell conversations apart, and a 150k-token prompt costs no more
 * than this to hash. Both texts are fixed over a conversation's turns, so the hash is too.
 */
export const OPENING_MAX_CHARS = 2_048;

const SESSION_HASH = new RegExp(`^[0-9a-f]{${SESSION_HASH_CHARS}}$`);

/**
 * The session key of a request, from the first of: header `x-claude-code-session-id` (Claude
 * Code); header `session_id` or body `prompt_cache_key` (Codex CLI, OpenAI clients); body
 * `metadata.user_id` (Anthropic clients); header `x-session-affinity` (any client); else the
 * conversation's opening (system prompt and first user message, {@link OPENING_MAX_CHARS} of
 * each). Null when none of them is there (no user message). Every source is hashed with the
 * client key's id, so only the hash leaves this function. Its answer depends on its input
 * alone (a named session's hash is remembered, see `named`).
 */
export function sessionKeyOf(input: SessionKeyInput): SessionKey | null {
  const { headers, body, clientId } = input;
  const claudeCode = nonEmpty(headers?.["x-claude-code-session-id"]);
  if (claudeCode !== undefined)
    return named(clientId, "x-claude-code-session-id", "claude-code", claudeCode);
  const sessionId = nonEmpty(headers?.session_id);
  if (sessionId !== undefined) return named(clientId, "session_id", "openai", sessionId);
  const promptCacheKey = nonEmpty(body.prompt_cache_key);
  if (promptCacheKey !== undefined)
    return named(clientId, "prompt_cache_key", "openai", promptCacheKey);
  const metadata = body.metadata;
  const userId =
    typeof metadata === "object" && metadata !== null
      ? nonEmpty((metadata as Record<string, unknown>).user_id)
      : undefined;
  if (userId !== undefined) return named(clientId, "metadata.user_id", "anthropic-user", userId);
  const affinity = nonEmpty(headers?.["x-session-affinity"]);
  if (affinity !== undefined) return named(clientId, "x-session-affinity", "affinity", affinity);
  const opening = input.opening(OPENING_MAX_CHARS);
  if (opening === null) return null;
  return {
    hash: sessionHash(
      clientId,
      "conversation",
      `${opening.system}\u0000${opening.firstUserMessage}`,
    ),
    source: "conversation",
    opening: !opening.continued,
  };
}

/**
 * The key of a session the client named (a header or a body field). Its hash is remembered for
 * the next requests of the session (see {@link namedHashes}).
 */
function named(
  clientId: string,
  source: SessionKeySource,
  family: string,
  value: string,
): SessionKey {
  if (value.length > NAMED_VALUE_MAX_CHARS) {
    return { hash: sessionHash(clientId, family, value), source, opening: false };
  }
  const input = hashInput(clientId, family, value);
  let hash = namedHashes.get(input);
  if (hash === undefined) {
    if (namedHashes.size >= NAMED_HASHES_MAX) namedHashes.clear();
    hash = hashOf(input);
    namedHashes.set(input, hash);
  }
  return { hash, source, opening: false };
}

/**
 * Hashes of the session ids clients sent lately, by their hash input: every request of a
 * session names the same id, and a map lookup costs a small part of a SHA-256 (about 2 µs a
 * request in the gateway benchmark). Only ids the client sent are kept, up to
 * {@link NAMED_VALUE_MAX_CHARS} each, never a conversation's text; the map is emptied when it
 * holds {@link NAMED_HASHES_MAX}, so it stays bounded and a busy gateway hashes each live
 * session again at most once per emptying.
 */
const namedHashes = new Map<string, string>();
const NAMED_HASHES_MAX = 4_096;
const NAMED_VALUE_MAX_CHARS = 256;

/**
 * The hash of one session value for one client key: the first {@link SESSION_HASH_CHARS} hex
 * characters of SHA-256 over the key id, the family of the source (a Codex `session_id` header
 * and the same value as `prompt_cache_key` are one session) and the value.
 */
export function sessionHash(clientId: string, family: string, value: string): string {
  return hashOf(hashInput(clientId, family, value));
}

function hashInput(clientId: string, family: string, value: string): string {
  return `${clientId}\u0000${family}\u0000${value}`;
}

function hashOf(input: string): string {
  return sha256Hex(input).slice(0, SESSION_HASH_CHARS);
}

/**
 * SHA-256 of `text` in hex: Node's one-shot `crypto.hash` (Node 20.12 and later), a third of
 * the cost of a `Hash` object on every session request, else `createHash`.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text).digest("hex");

/** True for a string shaped like a session hash (what the `session` query parameter names). */
export function isSessionHash(value: string): boolean {
  return SESSION_HASH.test(value);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}
