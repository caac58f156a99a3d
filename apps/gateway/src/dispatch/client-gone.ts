import { GatewayError } from "../errors";

/** True for the error {@link clientGone} makes. */
export function isClientGone(error: unknown): boolean {
  return GatewayError.isInstance(error) && error.code === "client_closed_request";
}

/** The client closed the connection: no cooldown, no fall-through, nothing more to send. */
export function clientGone(cause: unknown): GatewayError {
  return new GatewayError({
    code: "client_closed_request",
    message: "the client closed the connection",
    cause,
  });
}
