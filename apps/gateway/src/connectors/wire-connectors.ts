import { isDeepStrictEqual } from "node:util";
import type { ResolvedSecrets } from "../config/secrets";
import { configNameOf } from "../protocols";
import type { UpstreamConnector } from "./connector";
import { ConnectorError } from "./connector-error";
import type { OnboardingPoll } from "./connector-spec";
import type { CredentialPersistence } from "./credential-persistence";
import { type ConnectorRegistry, createConnectorRegistry } from "./registry";

/** What {@link wireConnectors} built: a connector per enabled connection, and the secrets updated. */
export interface WiredConnectors {
  /** Connection id → its connector, for every connection still enabled. */
  connectors: ReadonlyMap<string, UpstreamConnector>;
  /**
   * `secrets` with the connections whose connector could not be built (unknown provider,
   * settings that do not fit it, a wire other than the connector's) added to the disabled ones,
   * with the reason, and a warning each. Reasons name the connection, never a secret.
   */
  secrets: ResolvedSecrets;
}

/**
 * Builds one connector per enabled connection (`registry.create(spec, deps)`).
 * A connection its connector refuses is disabled, not fatal: the gateway starts without it and
 * `planfirst check` names the problem, as for an unset credential variable. With `reuse` (the
 * connectors a running gateway wired before a reload), a connection whose spec is unchanged
 * keeps its connector object, so its token, refresh and project state carry over.
 */
export function wireConnectors(
  secrets: ResolvedSecrets,
  options: {
    persistence: CredentialPersistence;
    now: () => number;
    registry?: ConnectorRegistry;
    /** How account setups are polled (Code Assist onboarding); default the connector's. */
    onboardingPoll?: OnboardingPoll;
    reuse?: WiredConnectors;
  },
): WiredConnectors {
  const registry = options.registry ?? createConnectorRegistry();
  const connectors = new Map<string, UpstreamConnector>();
  const disabled = new Map(secrets.disabledConnections);
  const warnings = [...secrets.warnings];
  const specs = new Map(secrets.specs ?? []);
  const disable = (id: string, reason: string) => {
    disabled.set(id, reason);
    specs.delete(id);
    warnings.push(`connection ${id} is disabled: ${reason}`);
  };
  for (const [id, spec] of secrets.specs ?? []) {
    const kept = options.reuse?.connectors.get(id);
    if (kept && isDeepStrictEqual(options.reuse?.secrets.specs?.get(id), spec)) {
      connectors.set(id, kept);
      continue;
    }
    let connector: UpstreamConnector;
    try {
      connector = registry.create(spec, {
        persistence: options.persistence,
        now: options.now,
        ...(options.onboardingPoll ? { onboardingPoll: options.onboardingPoll } : {}),
      });
    } catch (error) {
      if (!ConnectorError.isInstance(error)) throw error;
      disable(id, error.message);
      continue;
    }
    if (spec.protocol !== undefined && spec.protocol !== connector.protocol) {
      // The body would be encoded for one wire and sent to an endpoint speaking another.
      disable(
        id,
        `connection ${id}: provider "${spec.provider}" speaks protocol "${configNameOf(connector.protocol)}" upstream, the config says "${configNameOf(spec.protocol)}"`,
      );
      continue;
    }
    connectors.set(id, connector);
  }
  if (disabled.size === secrets.disabledConnections.size) return { connectors, secrets };
  return {
    connectors,
    secrets: { ...secrets, specs, disabledConnections: disabled, warnings },
  };
}
