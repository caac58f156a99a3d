import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRoutingTable, type GatewayConfig, parseConfig } from "@planfirst/gateway";

/** The committed simulate fixtures folder (apps/cli/test/fixtures/simulate). */
export const SIMULATE_FIXTURES = fileURLToPath(
  new URL("../../test/fixtures/simulate/", import.meta.url),
);

/** A fixture config, validated by the gateway's own loader, and its routing table. */
export function fixtureSetup(name: "claude" | "codex"): {
  config: GatewayConfig;
  table: ReturnType<typeof createRoutingTable>;
} {
  const config = parseConfig(
    JSON.parse(readFileSync(`${SIMULATE_FIXTURES}planfirst.${name}.json`, "utf8")),
  );
  const table = createRoutingTable(config, {
    credentials: new Map(config.connections.map((connection) => [connection.id, null])),
    disabledConnections: new Map(),
    clientKeys: [],
    warnings: [],
  });
  return { config, table };
}
