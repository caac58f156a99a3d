import type { ProtocolName } from "./codec";
import type { WireProtocol } from "./types";

/**
 * The hub protocol a connection's configured `protocol` speaks upstream: `openai` is chat
 * completions, `anthropic` the Messages API, `openai-responses` the Responses API.
 */
export function hubProtocolOf(configured: string): ProtocolName {
  if (configured === "anthropic") return "anthropic-messages";
  if (configured === "openai-responses") return "openai-responses";
  if (configured === "gemini") return "gemini";
  return "openai-chat";
}

/** The error shape a hub protocol's clients read: Anthropic's for Messages, OpenAI's otherwise. */
export function errorShapeOf(protocol: ProtocolName): WireProtocol {
  return protocol === "anthropic-messages" ? "anthropic" : "openai";
}
