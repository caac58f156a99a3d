import { ConfigError, type GatewayProblem } from "../errors";
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
}

/** Secrets read from the environment once at start. */
export interface ResolvedSecrets {
  /** Credential per enabled connection id; null for keyless connections. */
  credentials: ReadonlyMap<string, string | null>;
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
  for (const connection of config.connections) {
    if (connection.credential === undefined) {
      credentials.set(connection.id, null);
      continue;
    }
    const name = envName(connection.credential);
    const value = env[name];
    if (value === undefined || value === "") {
      const reason = `credential env:${name} is not set`;
      disabledConnections.set(connection.id, reason);
      warnings.push(`connection ${connection.id} is disabled: ${reason}`);
      continue;
    }
    credentials.set(connection.id, value);
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
    clientKeys.push({
      id: typeof entry === "string" ? name : entry.id,
      key: value,
      connections:
        typeof entry === "string" || entry.connections === undefined
          ? null
          : new Set(entry.connections),
    });
  });
  if (problems.length > 0)
    throw new ConfigError({ code: "invalid_config", message: "client keys are not set", problems });
  return { credentials, disabledConnections, clientKeys, warnings };
}
