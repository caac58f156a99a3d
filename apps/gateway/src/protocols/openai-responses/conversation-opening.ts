import { BoundedText, type ConversationOpening } from "../conversation-opening";
import { isRecord } from "../ir/guards";

const SYSTEM_ROLES = new Set(["system", "developer"]);

/**
 * The opening of a Responses conversation: `instructions` and the `system` / `developer`
 * messages before the first user message, the first user message's text (`input` itself when it
 * is a string), and whether the body continues a conversation: a `previous_response_id`, or an
 * item in `input` that is not a user, system or developer message (an assistant message, a tool
 * call or its output, reasoning). Null when there is no user message. Total.
 */
export function responsesConversationOpening(
  body: Readonly<Record<string, unknown>>,
  maxChars: number,
): ConversationOpening | null {
  const system = new BoundedText(maxChars);
  if (typeof body.instructions === "string") system.add(body.instructions);
  let continued = typeof body.previous_response_id === "string";
  const input = body.input;
  if (typeof input === "string") {
    const only = new BoundedText(maxChars);
    only.add(input);
    return { system: system.toString(), firstUserMessage: only.toString(), continued };
  }
  let firstUser: BoundedText | null = null;
  for (const item of Array.isArray(input) ? input : []) {
    if (!isRecord(item)) continue;
    const isMessage = item.type === undefined || item.type === null || item.type === "message";
    const role = isMessage && typeof item.role === "string" ? item.role : null;
    if (role === "user") {
      if (firstUser === null) {
        firstUser = new BoundedText(maxChars);
        firstUser.addContent(item.content);
      }
    } else if (role !== null && SYSTEM_ROLES.has(role)) {
      if (firstUser === null) system.addContent(item.content);
    } else {
      continued = true;
    }
    if (firstUser && continued) break;
  }
  if (firstUser === null) return null;
  return { system: system.toString(), firstUserMessage: firstUser.toString(), continued };
}
