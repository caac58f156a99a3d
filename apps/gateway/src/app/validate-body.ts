import type { z } from "zod";
import { GatewayError } from "../errors";
import { messagesRequestSchema } from "../protocols/anthropic-messages/anthropic-messages-api";
import { chatRequestSchema } from "../protocols/openai-chat/openai-chat-api";
import { parseWire } from "../protocols/wire-parse";

/** Deepest nesting of arrays and objects a client body may have. */
export const MAX_BODY_DEPTH = 64;

/** What one client API's bodies are checked against. */
interface ApiRules {
  readonly schema: z.ZodType;
  readonly what: string;
  readonly roles: ReadonlySet<string>;
}

const CHAT: ApiRules = {
  schema: chatRequestSchema,
  what: "not a valid chat completions request",
  roles: new Set(["system", "developer", "user", "assistant", "tool", "function"]),
};

const MESSAGES: ApiRules = {
  schema: messagesRequestSchema,
  what: "not a valid Messages request",
  // Claude Code sends `system` inside `messages`; the codec accepts it there.
  roles: new Set(["user", "assistant", "system"]),
};

/** By wire protocol and by hub protocol name; another API gets the shape checks only. */
const RULES: Readonly<Record<string, ApiRules>> = {
  openai: CHAT,
  "openai-chat": CHAT,
  anthropic: MESSAGES,
  "anthropic-messages": MESSAGES,
};

/**
 * Validates a client completion body for client API `api` (`openai`, `anthropic`, or a hub
 * protocol name) before anything else reads it: nesting no deeper than
 * {@link MAX_BODY_DEPTH} and no string longer than `limitBytes` (checked by one iterative walk,
 * never recursion, so a body nested 100 000 deep is a 400, not a stack overflow), then the
 * protocol's wire schema (types, `max_tokens` ≥ 1, message and content shapes) and the message
 * roles. Throws a `GatewayError` / `ProtocolError` answered 400 naming the offending path.
 */
export function validateCompletionBody(
  api: string,
  body: Record<string, unknown>,
  limitBytes: number,
): void {
  checkShape(body, limitBytes);
  const rules = RULES[api];
  if (!rules) return;
  parseWire(rules.schema, body, rules.what);
  const roles = rules.roles;
  const messages = body.messages;
  if (Array.isArray(messages)) {
    messages.forEach((message, index) => {
      const role = (message as { role: string }).role;
      if (!roles.has(role)) {
        throw invalid(
          `messages[${index}].role`,
          `unknown role ${JSON.stringify(role.slice(0, 40))}; allowed: ${[...roles].join(", ")}`,
        );
      }
    });
  }
}

/** Depth-first walk with an explicit stack of [value, path, depth]. */
function checkShape(body: unknown, limitBytes: number): void {
  const stack: Array<[unknown, string, number]> = [[body, "", 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === "string") {
      if (value.length > limitBytes) throw invalid(path, `is longer than ${limitBytes} bytes`);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw invalid(path, `nests deeper than ${MAX_BODY_DEPTH} levels`);
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push([value[i], `${path}[${i}]`, depth + 1]);
    } else {
      for (const [key, child] of Object.entries(value)) {
        stack.push([child, path === "" ? key : `${path}.${key}`, depth + 1]);
      }
    }
  }
}

function invalid(path: string, message: string): GatewayError {
  const where = path === "" ? "body" : path;
  return new GatewayError({
    code: "invalid_request",
    message: `${where}: ${message}`,
    details: { param: where },
  });
}
