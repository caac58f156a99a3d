/**
 * Client-facing ids derived from upstream ids, so one response keeps one id across protocols:
 * `chatcmpl-abc` ↔ `msg_abc`. Deterministic (no randomness) so translations are testable.
 */
export function anthropicMessageId(upstreamId: unknown): string {
  const raw = typeof upstreamId === "string" && upstreamId !== "" ? upstreamId : "planfirst";
  return raw.startsWith("msg_") ? raw : `msg_${raw.replace(/^chatcmpl-/, "")}`;
}

/** OpenAI completion id for an upstream (Anthropic) message id. */
export function openAiCompletionId(upstreamId: unknown): string {
  const raw = typeof upstreamId === "string" && upstreamId !== "" ? upstreamId : "planfirst";
  return raw.startsWith("chatcmpl-") ? raw : `chatcmpl-${raw.replace(/^msg_/, "")}`;
}

/** Anthropic tool-use id for an OpenAI tool-call id. */
export function anthropicToolUseId(callId: unknown, fallbackIndex: number): string {
  if (typeof callId === "string" && callId !== "") return callId;
  return `toolu_planfirst_${fallbackIndex}`;
}
