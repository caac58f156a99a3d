/**
 * The credential an upstream request carries (`Authorization: Bearer X`, `Authorization: token
 * X`, a bare `Authorization` value, or `x-api-key`), so a 401 can name the token it refused and
 * concurrent 401s refresh once. Undefined when the request carries none. The value is handed to
 * the connector only, never logged.
 */
export function sentCredential(headers: Readonly<Record<string, string>>): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const space = authorization.indexOf(" ");
    return space === -1 ? authorization : authorization.slice(space + 1);
  }
  return headers["x-api-key"];
}
