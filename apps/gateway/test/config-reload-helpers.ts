import type { GatewayConfigInput } from "../src/config/schema";
import type { GatewayStatus } from "../src/status/gateway-status";
import { type ConnectionInput, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, type Harness, post, useTestBed } from "./harness";

// What the config reload tests share: the standard fakes and an `extra` one, gateways started
// from a real config file, and the connection a reloaded file adds.

const EXTRA_KEY = "sk-extra-secret-value-444";

/** The test variables with the `extra` connection's key. */
export const ENV = { ...TEST_ENV, EXTRA_KEY };

/**
 * Registers the fakes of a config reload test file (the standard ones and `extra`, see
 * {@link useTestBed}) and returns them with the helpers that use them.
 */
export function useReloadBed() {
  const bed = useTestBed({ ...STANDARD_FAKES, extra: "openai" });

  /** A metered connection serving `glm-4.6` on the `extra` fake. */
  function extraConnection(): ConnectionInput {
    return {
      id: "extra",
      provider: "openrouter",
      authType: "apikey",
      protocol: "openai",
      baseUrl: bed.fakes.extra.url,
      credential: "env:EXTRA_KEY",
      models: ["glm-4.6"],
      timeoutMs: 5_000,
    };
  }

  /** The standard config with `change` applied to its connection list. */
  function withConnections(
    change: (connections: ConnectionInput[]) => ConnectionInput[],
    overrides: Partial<GatewayConfigInput> = {},
  ): GatewayConfigInput {
    const base = standardConfig(bed.fakes, overrides);
    return { ...base, connections: change([...(base.connections ?? [])]) };
  }

  /** Starts a gateway (closed after the test) from a config file holding `config`. */
  function startFromFile(config: GatewayConfigInput = standardConfig(bed.fakes)) {
    return bed.start({ config, env: ENV, configFile: true });
  }

  return { bed, extraConnection, withConnections, startFromFile };
}

/** POSTs a chat request for `model` with `headers`. */
export function chat(harness: Harness, model: string, headers: Record<string, string> = {}) {
  return post(harness.url, "/v1/chat/completions", chatBody(model), headers);
}

/** The gateway's `/v1/status`. */
export async function status(harness: Harness): Promise<GatewayStatus> {
  return (await (await fetch(`${harness.url}/v1/status`)).json()) as GatewayStatus;
}

/** The budget of `rung` in a status view. */
export function budgetOf(view: GatewayStatus, rung: string) {
  return view.budgets.find((budget) => budget.rung === rung)!;
}
