import type { z } from "zod";
import { invalidField } from "./degrade-policy";

/**
 * Validates an untrusted wire body against a codec's zod schema. On failure throws
 * `ProtocolError` (`invalid_field`) naming the first offending path, e.g. `messages[2].role`.
 */
export function parseWire<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? pathText(issue.path) : "";
  throw invalidField(path === "" ? "body" : path, `${what}: ${issue?.message ?? "is not valid"}`);
}

function pathText(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}
