/** Best-effort human message out of an upstream error body of either protocol. */
export function upstreamErrorMessage(body: unknown, fallback: string): string {
  if (typeof body === "object" && body !== null) {
    const record = body as Record<string, unknown>;
    const error = record.error;
    if (typeof error === "object" && error !== null) {
      const message = (error as Record<string, unknown>).message;
      if (typeof message === "string" && message !== "") return message;
    }
    if (typeof error === "string" && error !== "") return error;
    if (typeof record.message === "string" && record.message !== "") return record.message;
  }
  return fallback;
}

/** The upstream error's type, when it sent one (`invalid_request_error`, …). */
export function upstreamErrorType(body: unknown): string | undefined {
  if (typeof body === "object" && body !== null) {
    const error = (body as Record<string, unknown>).error;
    if (typeof error === "object" && error !== null) {
      const type = (error as Record<string, unknown>).type;
      if (typeof type === "string" && type !== "") return type;
    }
  }
  return undefined;
}
