import {
  BoundedText,
  type ConversationOpening,
  type OpeningRoles,
  openingOfMessages,
} from "../conversation-opening";

const MESSAGES_ROLES: OpeningRoles = {
  system: new Set(["system"]),
  modelTurn: new Set(["assistant"]),
};

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
  return openingOfMessages(body.messages, system, MESSAGES_ROLES, maxChars);
}
