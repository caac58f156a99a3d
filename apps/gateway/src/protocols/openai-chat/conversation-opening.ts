import {
  BoundedText,
  type ConversationOpening,
  type OpeningRoles,
  openingOfMessages,
} from "../conversation-opening";

const CHAT_ROLES: OpeningRoles = {
  system: new Set(["system", "developer"]),
  modelTurn: new Set(["assistant", "tool", "function"]),
};

/**
 * The opening of a chat completions conversation: the `system` and `developer` messages before
 * the first user message, the first user message's text, and whether an assistant or tool
 * message is already there. Null when the body holds no user message. Total.
 */
export function chatConversationOpening(
  body: Readonly<Record<string, unknown>>,
  maxChars: number,
): ConversationOpening | null {
  return openingOfMessages(body.messages, new BoundedText(maxChars), CHAT_ROLES, maxChars);
}
