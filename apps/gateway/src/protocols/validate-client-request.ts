import { messagesRequestSchema } from "./anthropic-messages/anthropic-messages-api";
import type { ProtocolName } from "./codec";
import { geminiRequestSchema } from "./gemini/gemini-api";
import { chatRequestSchema } from "./openai-chat/openai-chat-api";
import { responsesRequestSchema } from "./openai-responses/openai-responses-api";
import { parseWire } from "./wire-parse";

const REQUEST_SCHEMAS = {
  "openai-chat": chatRequestSchema,
  "anthropic-messages": messagesRequestSchema,
  "openai-responses": responsesRequestSchema,
  gemini: geminiRequestSchema,
} as const;

const WHAT: Readonly<Record<ProtocolName, string>> = {
  "openai-chat": "not a valid chat completions request",
  "anthropic-messages": "not a valid Messages request",
  "openai-responses": "not a valid Responses request",
  gemini: "not a valid Gemini Code Assist request",
};

/**
 * Checks a client body against the wire schema of the codec that will read it (the same zod
 * schema the codec decodes with, tolerant of compatible clients' extra fields). Throws
 * `ProtocolError` (`invalid_field`, answered 400) naming the first offending path, e.g.
 * `messages[0].role`. It does not refuse fields another protocol cannot carry: that is decided
 * per target, so a later target that can serve them still may.
 */
export function validateClientRequest(protocol: ProtocolName, body: unknown): void {
  parseWire(REQUEST_SCHEMAS[protocol], body, WHAT[protocol]);
}
