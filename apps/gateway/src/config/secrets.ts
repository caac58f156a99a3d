import { ConfigError, type GatewayProblem } from "../errors";
import { protocolOfConfig } from "../protocols/registry";
import {
  type ClientKeyBudget,
  type ClientKeyLimits,
  type ClientRole,
  keyBudgetScope,
} from "./client-key-policy";
import type { ConnectionConfig } from "./connection-schema";
import type { ConnectorSpec } from "./connection-spec";
import type { GatewayConfig } from "./schema";

/** Environment variables the gateway reads secrets from (`process.env` shape). */
export type GatewayEnv = Readonly<Record<string, string | undefined>>;

/** A client key resolved from the environment. `key` is the secret; never log it. */
export interface ResolvedClientKey {
  /** The configured id, or the env variable name for a bare `env:NAME` entry. */
  id: string;
  key: string;
  /** Connection ids the key may use; null = all. */
  connections: ReadonlySet<string> | null;
  /** `admin` sees everything; `client` (a bare `env:NAME` entry too) only its own. */
  role: ClientRole;
  /** The key's budget over every paid rung, its window resolved; null = none. */
  budget: ClientKeyBudget | null;
  /** Its concurrency and rate limits; null when it has neither. */
  limits: ClientKeyLimits | null;
}

/** Secrets read from the environment once at start. */
export interface ResolvedSecrets {
  /**
   * Static credential per enabled connection id; null for keyless connections and for
   * refreshable logins (their tokens live in the connector, see `specs`).
   */
  credentials: ReadonlyMap<string, string | null>;
  /**
   * What each enabled connection's connector is built from, `env:` references resolved; absent
   * where no connector is built (a routing table for classification only).
   */
  specs?: ReadonlyMap<string, ConnectorSpec>;
  /** Connection id → why it is disabled (its credential variable is unset). */
  disabledConnections: ReadonlyMap<string, string>;
  clientKeys: readonly ResolvedClientKey[];
  /** Human warnings, naming variables but never their values. */
  warnings: readonly string[];
}

/** Name of the variable an `env:NAME` reference points at. */
export function envName(ref: string): string {
  return ref.slice("env:".length);
}

/**
 * Reads every `env:NAME` reference of the config from `env`. A connection whose credential
 * variable is unset or empty is disabled with a warning (the gateway still starts, and `check`
 * reports it). A client key whose variable is unset is an error: a key the operator meant to
 * require must never silently disappear. Messages name variables, never values.
 */
export function resolveSecrets(config: GatewayConfig, env: GatewayEnv): ResolvedSecrets {
  const credentials = new Map<string, string | null>();
  const disabledConnections = new Map<string, string>();
  const warnings: string[] = [];
  const specs = new Map<string, ConnectorSpec>();
  for (const connection of config.connections) {
    const resolved = resolveCredential(connection, env);
    if (!resolved.ok) {
      const reason = `credential env:${resolved.missing} is not set`;
      disabledConnections.set(connection.id, reason);
      warnings.push(`connection ${connection.id} is disabled: ${reason}`);
      continue;
    }
    credentials.set(connection.id, typeof resolved.value === "string" ? resolved.value : null);
    specs.set(connection.id, connectorSpecOf(connection, resolved.value));
  }
  const problems: GatewayProblem[] = [];
  const clientKeys: ResolvedClientKey[] = [];
  config.server.apiKeys.forEach((entry, index) => {
    const ref = typeof entry === "string" ? entry : entry.key;
    const name = envName(ref);
    const value = env[name];
    if (value === undefined || value === "") {
      problems.push({
        path: `server.apiKeys[${index}]${typeof entry === "string" ? "" : ".key"}`,
        message: `environment variable ${name} is not set`,
      });
      return;
    }
    if (typeof entry === "string") {
      clientKeys.push({
        id: name,
        key: value,
        connections: null,
        role: "client",
        budget: null,
        limits: null,
      });
      return;
    }
    clientKeys.push({
      id: entry.id,
      key: value,
      connections: entry.connections === undefined ? null : new Set(entry.connections),
      role: entry.role,
      budget:
        entry.budgetUsd === undefined
          ? null
          : {
              scope: keyBudgetScope(entry.id),
              budgetUsd: entry.budgetUsd,
              window: entry.budgetWindow ?? config.subscriptionLadder.budgetWindow,
            },
      limits:
        entry.maxConcurrent === undefined && entry.requestsPerMinute === undefined
          ? null
          : {
              maxConcurrent: entry.maxConcurrent ?? null,
              requestsPerMinute: entry.requestsPerMinute ?? null,
            },
    });
  });
  if (problems.length > 0)
    throw new ConfigError({ code: "invalid_config", message: "client keys are not set", problems });
  return { credentials, specs, disabledConnections, clientKeys, warnings };
}

type ResolvedCredential = ConnectorSpec["credential"];

/**
 * Reads a connection's credential from `env`: the value of a static `env:NAME`, or a refreshable
 * login with each of its `env:` references replaced by the variable's value. The first unset
 * variable is named (`missing`) and the connection is disabled; an unset optional field of a
 * login counts too, because the operator wrote it and a login missing a piece fails later and
 * less clearly.
 */
function resolveCredential(
  connection: ConnectionConfig,
  env: GatewayEnv,
): { ok: true; value: ResolvedCredential } | { ok: false; missing: string } {
  const credential = connection.credential;
  if (credential === undefined) return { ok: true, value: undefined };
  if (typeof credential === "string") {
    const name = envName(credential);
    const value = env[name];
    return value ? { ok: true, value } : { ok: false, missing: name };
  }
  const out: Exclude<ResolvedCredential, string | undefined> = {};
  if (credential.login) out.login = credential.login;
  if (credential.tokenUrl) out.tokenUrl = credential.tokenUrl;
  if (credential.clientId) out.clientId = credential.clientId;
  for (const field of [
    "refreshToken",
    "accessToken",
    "accountId",
    "githubToken",
    "clientSecret",
  ] as const) {
    const ref = credential[field];
    if (ref === undefined) continue;
    const name = envName(ref);
    const value = env[name];
    if (!value) return { ok: false, missing: name };
    out[field] = value;
  }
  return { ok: true, value: out };
}

/** The connector's view of a connection: ids, wire, URLs, headers and the resolved credential. */
function connectorSpecOf(
  connection: ConnectionConfig,
  credential: ResolvedCredential,
): ConnectorSpec {
  const spec: ConnectorSpec = {
    id: connection.id,
    provider: connection.provider,
    authType: connection.authType,
    protocol: protocolOfConfig(connection.protocol),
  };
  if (connection.baseUrl) spec.baseUrl = connection.baseUrl;
  if (connection.usageUrl) spec.usageUrl = connection.usageUrl;
  if (connection.headers) spec.headers = connection.headers;
  if (credential !== undefined) spec.credential = credential;
  return spec;
}

/** Every `env:` variable a connection's credential names, in config order. */
export function credentialEnvNames(connection: ConnectionConfig): string[] {
  const credential = connection.credential;
  if (credential === undefined) return [];
  if (typeof credential === "string") return [envName(credential)];
  const names: string[] = [];
  for (const field of ["refreshToken", "accessToken", "accountId", "githubToken"] as const) {
    const ref = credential[field];
    if (ref !== undefined) names.push(envName(ref));
  }
  return names;
}
