/** A status and JSON body the fake answers with. */
export interface JsonReply {
  status: number;
  body: unknown;
}

/**
 * A Google API error body (`google.rpc.Status` as JSON): `error.code` (the HTTP status),
 * `error.message`, `error.status` (the canonical code name) and `details` when there are any.
 */
export function rpcError(
  status: number,
  rpcStatus: string,
  message: string,
  details: unknown[] = [],
) {
  return {
    error: { code: status, message, status: rpcStatus, ...(details.length ? { details } : {}) },
  };
}

/** {@link rpcError} as a reply with that status. */
export function rpcReply(
  status: number,
  rpcStatus: string,
  message: string,
  details: unknown[] = [],
): JsonReply {
  return { status, body: rpcError(status, rpcStatus, message, details) };
}
