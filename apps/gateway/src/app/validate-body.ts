import { GatewayError } from "../errors";
import { type ClientProtocolName, clientWireOf } from "../protocols";

/** Deepest nesting of arrays and objects a client body may have. */
const MAX_BODY_DEPTH = 64;

/**
 * Validates a client completion body of `protocol` before anything else reads it: nesting no
 * deeper than {@link MAX_BODY_DEPTH} and no string longer than `limitBytes` (checked by one
 * iterative walk, never recursion, so a body nested 100 000 deep is a 400, not a stack
 * overflow), then the protocol's own check (`ClientWire.validateRequest`: its wire schema, with
 * types, `max_tokens` ≥ 1, message and content shapes, and its message roles). Throws a
 * `GatewayError` / `ProtocolError` answered 400 naming the offending path.
 */
export function validateCompletionBody(
  protocol: ClientProtocolName,
  body: Record<string, unknown>,
  limitBytes: number,
): void {
  checkShape(body, limitBytes);
  clientWireOf(protocol).validateRequest(body);
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
      // `for…in` rather than `Object.entries`, which makes an array per object and one per key:
      // 0.27 against 0.65 ms a request for a 587 KB agent turn. A parsed body's objects inherit
      // no enumerable keys, so both visit the same keys in the same order.
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key];
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
