import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function base62(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}

/** An OpenAI-style completion id, `chatcmpl-` and 29 characters. */
export function openAiCompletionId(): string {
  return `chatcmpl-${base62(29)}`;
}

/** An Anthropic-style message id, `msg_01` and 22 characters. */
export function anthropicMessageId(): string {
  return `msg_01${base62(22)}`;
}

/** An OpenAI-style tool call id. */
export function openAiToolCallId(): string {
  return `call_${base62(24)}`;
}

/** An Anthropic-style request id. */
export function anthropicRequestId(): string {
  return `req_011${base62(21)}`;
}

/** An OpenAI Responses id: `prefix` (`resp_`, `msg_`) and 48 hex digits. */
export function responsesId(prefix: "resp_" | "msg_"): string {
  return `${prefix}${randomBytes(24).toString("hex")}`;
}

/** A GitHub-style `x-github-request-id`: five colon-separated upper-case hex groups. */
export function githubRequestId(): string {
  return [4, 4, 6, 6, 8]
    .map((length) => randomBytes(length).toString("hex").slice(0, length).toUpperCase())
    .join(":");
}
