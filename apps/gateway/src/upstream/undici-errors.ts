import { UpstreamError } from "./upstream-error";

/** Drops a rejection nobody waits for: a `Client.destroy()` of a client being let go. */
export function ignoreError(): void {}

/** The `code` of an undici or Node error, as a string; undefined when it has none. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** Maps an undici failure before the response headers to an {@link UpstreamError}. */
export function headerError(
  error: unknown,
  code: string | undefined,
  origin: string,
): UpstreamError {
  if (UpstreamError.isInstance(error)) return error;
  if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT") {
    return new UpstreamError({
      code: "timeout",
      origin,
      message: `no response from ${origin} (${code})`,
      cause: error,
    });
  }
  if (code === "UND_ERR_ABORTED" || code === "UND_ERR_ABORT") {
    return new UpstreamError({
      code: "aborted",
      origin,
      message: `request to ${origin} aborted`,
      cause: error,
    });
  }
  return new UpstreamError({
    code: "network",
    origin,
    message: `upstream ${origin} unreachable (${code ?? "error"})`,
    cause: error,
  });
}
