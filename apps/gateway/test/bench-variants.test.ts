import { describe, expect, it } from "vitest";
import { BENCH_PLAN_ENTRY, benchConfig, GATEWAY_VARIANTS } from "../bench/gateway-variants";
import { checkConfig } from "../src/app/check-config";
import { parseConfig } from "../src/config/load-config";
import { resolveSecrets } from "../src/config/secrets";
import { createConnectorRegistry } from "../src/connectors/registry";
import { protocolOfConfig } from "../src/protocols";
import { createRoutingTable } from "../src/routing/routing-table";

// The benchmark's gateways are not run here (the bench measures them); their configs are
// checked, so a bench run does not find out first that one no longer parses or routes.

const ENV = { BENCH_PLAN_KEY: "bench-plan-key", BENCH_PAID_KEY: "bench-paid-key" };

describe("benchmark gateway variants", () => {
  it("every variant's config parses and has no error in planfirst check", () => {
    for (const variant of GATEWAY_VARIANTS) {
      const config = parseConfig(
        benchConfig(variant, "http://127.0.0.1:9/v1", { driver: "memory" }),
      );
      const errors = checkConfig(config, ENV).filter((f) => f.severity === "error");
      expect(errors, variant).toEqual([]);
    }
  });

  it("the plan variant is a provider of its own on the generic openai connector, a hard-stop plan on rung 0", () => {
    const config = parseConfig(benchConfig("plan", "http://127.0.0.1:9/v1", { driver: "memory" }));
    const [connection] = config.connections;
    expect(connection?.provider).toBe(BENCH_PLAN_ENTRY.provider);
    expect(
      createConnectorRegistry().choose({
        ...connection!,
        protocol: protocolOfConfig(connection!.protocol),
      }),
    ).toEqual({ kind: "generic", protocol: "openai-chat" });
    const table = createRoutingTable(config, resolveSecrets(config, ENV));
    const routed = table.connections.get(connection!.id);
    expect(routed?.billing).toMatchObject({ billing: "subscription", overage: "hard-stop" });
    expect(table.rungOf(connection!.id, connection!.models[0]!)).toBe("subscription");
  });

  it("every variant keeps session affinity on except plan-no-affinity, the plan row it is measured against", () => {
    for (const variant of GATEWAY_VARIANTS) {
      const config = parseConfig(
        benchConfig(variant, "http://127.0.0.1:9/v1", { driver: "memory" }),
      );
      const off = variant === "plan-no-affinity";
      expect(config.subscriptionLadder.sessionAffinity.idleTtlMs === 0, variant).toBe(off);
      if (off)
        expect(config.connections).toEqual(
          parseConfig(benchConfig("plan", "http://127.0.0.1:9/v1", { driver: "memory" }))
            .connections,
        );
    }
  });
});
