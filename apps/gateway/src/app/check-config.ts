import { validateRungBudgets } from "@planfirst/subscription-ladder";
import type { GatewayConfig } from "../config/schema";
import { credentialEnvNames, envName, type GatewayEnv } from "../config/secrets";
import { describeGenericConnector } from "../connectors/generic/generic-connector";
import { createConnectorRegistry } from "../connectors/registry";
import { protocolOfConfig } from "../protocols";
import { compileGlob, createRoutingTable } from "../routing/routing-table";

/** One finding of `checkConfig`. */
export interface ConfigFinding {
  /** `error` (it will not work as written), `warning` (it may cost or be skipped), `note` (how it will be served). */
  severity: "error" | "warning" | "note";
  /** Stable kind: `unknown_billing`, `overage_not_hard_stop`, `unpriced_model`, `unset_secret`, `unknown_connector`, `missing_base_url`, `generic_connector`, `empty_category`, `budget_on_quota_rung`. */
  code: string;
  /** Config path it concerns, e.g. `connections[2]`. */
  path: string;
  message: string;
}

/**
 * What `planfirst check` reports before anything is spent: connections that classify `unknown`
 * (they land on paid rungs), plan connections whose overage is not hard-stop (excluded from
 * `auto/subscription`), unpriced models on metered connections (treated as premium), `env:`
 * secrets that are unset (named, never valued), categories that match no model, budgets on
 * quota rungs, connections no connector serves and generic connections without `baseUrl`
 * (errors), and a note for each connection served by the generic connector of its protocol.
 * Pure: reads only its arguments.
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
    const identity = {
      provider: connection.provider,
      authType: connection.authType,
      protocol: protocolOfConfig(connection.protocol),
    };
    const choice = registry.choose(identity);
    if (choice === null) {
      findings.push({
        severity: "error",
        code: "unknown_connector",
        path: `connections[${index}]`,
        message: `${connection.id}: ${registry.unservedReason(identity)}`,
      });
    } else if (choice.kind === "generic") {
      const served = describeGenericConnector(choice.protocol, connection.authType === "none");
      findings.push({
        severity: "note",
        code: "generic_connector",
        path: `connections[${index}]`,
        message: `${connection.id}: provider ${connection.provider} has no connector of its own; served by the ${served}`,
      });
      if (!connection.baseUrl) {
        findings.push({
          severity: "error",
          code: "missing_base_url",
          path: `connections[${index}].baseUrl`,
          message: `${connection.id}: the generic ${connection.protocol} connector needs baseUrl (there is no default host); the connection will be disabled`,
        });
      }
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
        message: `${connection.id}: provider "${connection.provider}" with authType "${connection.authType}" is not in the billing catalog, so its billing is unknown: it is treated as metered and lands on a paid rung (a catalog.connections entry for the provider declares a plan)`,
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
