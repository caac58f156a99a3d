import { GatewayError } from "../errors";

/**
 * Checks that every entry of a client body's `messages` (already checked to be objects with a
 * string `role` by the wire schema) has one of `roles`. Throws `GatewayError`
 * (`invalid_request`, answered 400) naming the path, e.g. `messages[2].role`, and the roles
 * allowed.
 */
export function checkMessageRoles(body: Record<string, unknown>, roles: ReadonlySet<string>): void {
  const messages = body.messages;
  if (!Array.isArray(messages)) return;
  messages.forEach((message, index) => {
    const role = (message as { role: string }).role;
    if (roles.has(role)) return;
    const where = `messages[${index}].role`;
    throw new GatewayError({
      code: "invalid_request",
      message: `${where}: unknown role ${JSON.stringify(role.slice(0, 40))}; allowed: ${[...roles].join(", ")}`,
      details: { param: where },
    });
  });
}
