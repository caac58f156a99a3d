import { isRecord } from "./ir/guards";

/**
 * What a client body says about the conversation it belongs to: the two things that stay the
 * same over all its turns (the system prompt and the first user message), each cut to a bound,
 * and whether the body is a later turn. The session key's fallback hashes the texts.
 */
export interface ConversationOpening {
  /** The system prompt's text (every system or developer part before the first user message), at most the bound. */
  readonly system: string;
  /** The first user message's text parts, at most the bound. */
  readonly firstUserMessage: string;
  /** True when the body already holds a model turn (an assistant message, a tool call or its result): not the first turn. */
  readonly continued: boolean;
}

/**
 * Text collected up to `maxChars` UTF-16 units: appends stop once the bound is reached, so a
 * 150k-token prompt costs no more than its first `maxChars` characters.
 */
export class BoundedText {
  private text = "";

  constructor(private readonly maxChars: number) {}

  /** True once the bound is reached: later appends change nothing. */
  get full(): boolean {
    return this.text.length >= this.maxChars;
  }

  /** Appends `part` (and a separator before it when text is already there), cut at the bound. */
  add(part: string): void {
    if (this.full || part === "") return;
    const joined = this.text === "" ? part : `${this.text}\n${part}`;
    this.text = joined.length > this.maxChars ? joined.slice(0, this.maxChars) : joined;
  }

  /**
   * Appends a message's content: a string, or an array whose parts carry `text` (`text`,
   * `input_text` and the like); other parts (images, files) carry nothing here.
   */
  addContent(content: unknown): void {
    if (typeof content === "string") {
      this.add(content);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const part of content) {
      if (this.full) return;
      if (isRecord(part) && typeof part.text === "string") this.add(part.text);
    }
  }

  toString(): string {
    return this.text;
  }
}

/** Which roles of a message list are the system prompt and which are the model's own turns. */
export interface OpeningRoles {
  readonly system: ReadonlySet<string>;
  readonly modelTurn: ReadonlySet<string>;
}

/**
 * The opening of a conversation held as a list of `{ role, content }` messages (chat
 * completions, Messages): the `roles.system` messages before the first user message join
 * `system`, the first user message's text is read, and a `roles.modelTurn` message anywhere
 * makes the body a later turn. Null when the list holds no user message. Total.
 */
export function openingOfMessages(
  messages: unknown,
  system: BoundedText,
  roles: OpeningRoles,
  maxChars: number,
): ConversationOpening | null {
  let firstUser: BoundedText | null = null;
  let continued = false;
  for (const message of Array.isArray(messages) ? messages : []) {
    if (!isRecord(message) || typeof message.role !== "string") continue;
    if (roles.modelTurn.has(message.role)) {
      continued = true;
      if (firstUser) break;
    } else if (roles.system.has(message.role) && firstUser === null) {
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
