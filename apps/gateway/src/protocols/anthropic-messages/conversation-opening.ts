import { BoundedText, type ConversationOpening } from "../conversation-opening";
import { isRecord } from "../ir/guards";

/**
 * The opening of a Messages conversation: `system` (a string or text blocks, and any `system`
 * message Claude Code puts in `messages` before the first user message), the first user
 * message's text, and whether an assistant turn is already in `messages`. Null when the body
 * holds no user message. Total: a malformed body reads as far as it can.
 */
export function messagesConversationOpening(
  body: Readonly<Record<string, unknown>>,
  maxChars: number,
): ConversationOpening | null {
  const system = new BoundedText(maxChars);
  system.addContent(body.system);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let firstUser: BoundedText | null = null;
  let continued = false;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (message.role === "assistant") {
      continued = true;
      if (firstUser) break;
    } else if (message.role === "system" && firstUser === null) {
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
