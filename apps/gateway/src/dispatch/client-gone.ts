import { GatewayError } from "../errors";

/** The client closed the connection: no cooldown, no fall-through, nothing more to send. */
export function clientGone(cause: unknown): GatewayError {
  return new GatewayError({
    code: "client_closed_request",
    message: "the client closed the connection",
    cause,
  });
}
