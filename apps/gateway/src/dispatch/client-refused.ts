import { type AttemptRecord, GatewayError } from "../errors";

/**
 * `403 client_refused`: every target tried refused the client program itself, not the request
 * or the connection (Kimi For Coding admits only the coding agents it recognises by User-Agent,
 * quota-signals.md §15), and nothing else could serve. planfirst sends each client's own
 * User-Agent and never presents itself as another client, so the message says what would be
 * served: another client, or another connection.
 */
export function clientRefusedError(attempts: readonly AttemptRecord[]): GatewayError {
  const reasons = new Set<string>();
  for (const attempt of attempts) {
    if (attempt.outcome === "client_refused" && attempt.reason) reasons.add(attempt.reason);
  }
  const why = reasons.size > 0 ? `: ${[...reasons].join("; ")}` : "";
  return new GatewayError({
    code: "client_refused",
    message: `every target refused this client program${why}; send the request from a client it admits, or route it to another connection`,
    details: { attempts },
  });
}
