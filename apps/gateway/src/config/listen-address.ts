import type { GatewayProblem } from "../errors";
import type { GatewayConfig } from "./schema";

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return (
    host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host)
  );
}

/**
 * The problem with serving `config` on `host`, or null: a non-loopback address needs at least
 * one client key, at start and after every reload alike.
 */
export function keylessListenProblem(host: string, config: GatewayConfig): GatewayProblem | null {
  if (config.server.apiKeys.length > 0 || isLoopbackHost(host)) return null;
  return {
    path: "server.apiKeys",
    message: `set at least one client key (env:NAME): the gateway listens on ${host}, which is not a loopback address`,
  };
}
