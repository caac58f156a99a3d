/**
 * The gateway, loaded when a command needs it: `--help`, `catalog` and `init` start without
 * loading the server, its stores and its protocol code.
 */
export function loadGateway(): Promise<typeof import("@planfirst/gateway")> {
  return import("@planfirst/gateway");
}
