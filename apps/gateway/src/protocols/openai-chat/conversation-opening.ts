import { BoundedText, type ConversationOpening } from "../conversation-opening";
import { isRecord } from "../ir/guards";

const SYSTEM_ROLES = new Set(["system", "developer"]);
const MODEL_TURN_ROLES = new Set(["assistant", "tool", "function"]);

/**
 * The opening of a chat completions conversation: the `system` and `developer` messages before
 * the first user message, the first user message's text, and whether an assistant or tool
 * message is already there. Null when the body holds no user message. Total.
 */
export function chatConversationOpening(
  body: Readonly<Record<string, unknown>>,
  maxChars: number,
): ConversationOpening | null {
  const system = new BoundedText(maxChars);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let firstUser: BoundedText | null = null;
  let continued = false;
  for (const message of messages) {
    if (!isRecord(message) || typeof message.role !== "string") continue;
    if (MODEL_TURN_ROLES.has(message.role)) {
      continued = true;
      if (firstUser) break;
    } else if (SYSTEM_ROLES.has(message.role) && firstUser === null) {
      system.addContent(message.content);
    } else if (message.role === "user" && firstUser === null) {
      firstUser = new BoundedText(maxChars);
      firstUser.addContent(message.content);
      if (continued) break;
    }
  }
  if (firstUser === null) return null;
  return { system: system.toString(), firstUserMessage: firstUser.toString(), continued };
}
