import { validateRungBudgets } from "@planfirst/subscription-ladder";
import type { GatewayConfig } from "../config/schema";
import { credentialEnvNames, envName, type GatewayEnv } from "../config/secrets";
import { createConnectorRegistry } from "../connectors/registry";
import { compileGlob, createRoutingTable } from "../routing/routing-table";

/** One finding of `checkConfig`. */
export interface ConfigFinding {
  severity: "error" | "warning";
  /** Stable kind: `unknown_billing`, `overage_not_hard_stop`, `unpriced_model`, `unset_secret`, `unknown_connector`, `empty_category`, `budget_on_quota_rung`. */
  code: string;
  /** Config path it concerns, e.g. `connections[2]`. */
  path: string;
  message: string;
}

/**
 * What `planfirst check` reports before anything is spent: connections that classify `unknown`
 * (they land on paid rungs), plan connections whose overage is not hard-stop (excluded from
 * `auto/subscription`), unpriced models on metered connections (treated as premium), `env:`
 * secrets that are unset (named, never valued), categories that match no model, and budgets on
 * quota rungs and connections no registered connector serves (errors). Pure: reads only its
 * arguments.
 */
export function checkConfig(config: GatewayConfig, env: GatewayEnv): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  for (const problem of validateRungBudgets(config.subscriptionLadder.rungBudgetUsd)) {
    findings.push({
      severity: "error",
      code: "budget_on_quota_rung",
      path: `subscriptionLadder.${problem.path}`,
      message: `${problem.message} (allowed: ${problem.allowed})`,
    });
  }
  config.server.apiKeys.forEach((entry, index) => {
    const ref = typeof entry === "string" ? entry : entry.key;
    if (!env[envName(ref)]) {
      findings.push({
        severity: "error",
        code: "unset_secret",
        path: `server.apiKeys[${index}]`,
        message: `client key variable ${envName(ref)} is not set: the gateway will not start`,
      });
    }
  });
  const credentials = new Map<string, string | null>();
  const registry = createConnectorRegistry();
  config.connections.forEach((connection, index) => {
    for (const name of credentialEnvNames(connection)) {
      if (env[name]) continue;
      findings.push({
        severity: "warning",
        code: "unset_secret",
        path: `connections[${index}].credential`,
        message: `${connection.id}: env:${name} is not set; the connection will be disabled`,
      });
    }
    if (!registry.has(connection.provider, connection.authType)) {
      findings.push({
        severity: "error",
        code: "unknown_connector",
        path: `connections[${index}]`,
        message: `${connection.id}: no connector for provider "${connection.provider}" (authType "${connection.authType}"); known: ${registry.known().join(", ")}`,
      });
    }
    credentials.set(connection.id, null);
  });
  // Classification does not depend on secrets: build the table with every connection enabled.
  const table = createRoutingTable(config, {
    credentials,
    disabledConnections: new Map(),
    clientKeys: [],
    warnings: [],
  });
  config.connections.forEach((connection, index) => {
    const routed = table.connections.get(connection.id)!;
    const { billing, overage } = routed.billing;
    if (billing === "unknown") {
      findings.push({
        severity: "warning",
        code: "unknown_billing",
        path: `connections[${index}]`,
        message: `${connection.id}: provider "${connection.provider}" with authType "${connection.authType}" is not in the billing catalog; it is treated as metered and lands on a paid rung`,
      });
    }
    if (billing === "subscription" && overage !== "hard-stop") {
      findings.push({
        severity: "warning",
        code: "overage_not_hard_stop",
        path: `connections[${index}]`,
        message: `${connection.id}: plan overage is "${overage}", so it is excluded from auto/subscription (SUB2)`,
      });
    }
    if (billing === "metered" || billing === "unknown") {
      connection.models.forEach((model, modelIndex) => {
        if (!table.priceOf(connection.provider, model)) {
          findings.push({
            severity: "warning",
            code: "unpriced_model",
            path: `connections[${index}].models[${modelIndex}]`,
            message: `${connection.id}: ${model} has no price in the catalog; it is treated as premium (T4) and cannot be reserved against a budget`,
          });
        }
      });
    }
  });
  for (const [category, globs] of Object.entries(config.categories)) {
    const matchers = globs.map(compileGlob);
    if (!table.models.some((model) => matchers.some((m) => m.test(model)))) {
      findings.push({
        severity: "warning",
        code: "empty_category",
        path: `categories.${category}`,
        message: `category "${category}" matches no configured model`,
      });
    }
  }
  return findings;
}
