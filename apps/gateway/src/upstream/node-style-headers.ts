/** Headers Node's `IncomingMessage` keeps only the first of (it drops the repeats). */
const SINGLE_VALUE_HEADERS = new Set([
  "age",
  "authorization",
  "content-length",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
]);

/**
 * undici gives a repeated header as an array; Node's `IncomingMessage` joins most repeats with
 * ", ", keeps the first of a few and an array only for `set-cookie`. Callers (signal parsers,
 * relays) read one string per header, so repeats are folded the same way; most have none.
 */
export function nodeStyleHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  for (const name in headers) {
    const value = headers[name];
    if (!Array.isArray(value) || name === "set-cookie") continue;
    if (SINGLE_VALUE_HEADERS.has(name)) headers[name] = value[0];
    else headers[name] = value.join(name === "cookie" ? "; " : ", ");
  }
  return headers;
}
