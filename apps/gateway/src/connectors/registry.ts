import { configNameOf } from "../protocols";
import { createAnthropicConnector } from "./anthropic/anthropic-connector";
import { createClaudeOauthConnector } from "./claude-oauth/claude-oauth-connector";
import { createCodexConnector } from "./codex/codex-connector";
import type { UpstreamConnector } from "./connector";
import { ConnectorError } from "./connector-error";
import type { ConnectorDeps, ConnectorSpec } from "./connector-spec";
import { createGeminiCodeAssistConnector } from "./gemini-code-assist/gemini-code-assist-connector";
import {
  createGenericConnector,
  GENERIC_PROTOCOLS,
  type GenericProtocol,
  isGenericProtocol,
} from "./generic/generic-connector";
import { createGithubCopilotConnector } from "./github-copilot/github-copilot-connector";
import { createKimiConnector } from "./kimi/kimi-connector";
import { createOpenRouterConnector } from "./openrouter/openrouter-connector";
import { createZaiConnector } from "./zai/zai-connector";

/** Builds the connector of one connection. */
type ConnectorFactory = (spec: ConnectorSpec, deps: ConnectorDeps) => UpstreamConnector;

/** What picks a connection's connector: its provider, auth type and upstream protocol. */
type ConnectorIdentity = Pick<ConnectorSpec, "provider" | "authType" | "protocol">;

/**
 * Which connector serves a connection: a registered factory (`key` as registered, lower-case:
 * `codex`, `claude/oauth`) or the generic connector of its protocol.
 */
type ConnectorChoice =
  | { readonly kind: "own"; readonly key: string }
  | { readonly kind: "generic"; readonly protocol: GenericProtocol };

/** Maps provider ids (optionally `provider/authType`) to connector factories. */
export interface ConnectorRegistry {
  /**
   * The connector {@link ConnectorRegistry.choose} picks for `spec`. Throws ConnectorError
   * `unknown_provider` with {@link ConnectorRegistry.unservedReason} when there is none, and
   * whatever the chosen factory throws for settings that do not fit it.
   */
  create(spec: ConnectorSpec, deps: ConnectorDeps): UpstreamConnector;
  /**
   * The connector of a connection, in this order: the `provider/authType` entry, the `provider`
   * entry, then the generic connector of its `protocol` (`openai-chat`, `anthropic-messages`,
   * `openai-responses`; `openai-chat` when the connection names none). Null when none applies (no
   * entry, and a protocol without a generic connector). Provider ids and auth types are matched
   * case-insensitively.
   */
  choose(connection: ConnectorIdentity): ConnectorChoice | null;
  /**
   * Why no connector serves `connection`, naming the providers that have one of their own and
   * the protocols that have a generic one (for errors and `planfirst check`).
   */
  unservedReason(connection: ConnectorIdentity): string;
  /** Registered keys (`codex`, `claude/oauth`…), sorted. */
  known(): string[];
  /**
   * True when `create` would find a connector for this provider, auth type and protocol
   * (`openai-chat` when omitted).
   */
  has(provider: string, authType: string, protocol?: ConnectorSpec["protocol"]): boolean;
}

/**
 * The connectors planfirst ships, by key. Every other provider id (groq, deepseek, mistral,
 * ollama, vLLM, a coding plan from a provider not listed here…) is served by the generic
 * connector of its protocol.
 */
const BUILT_IN_CONNECTORS: Readonly<Record<string, ConnectorFactory>> = Object.freeze({
  anthropic: (spec) => createAnthropicConnector(spec),
  "anthropic/oauth": createClaudeOauthConnector,
  "claude/oauth": createClaudeOauthConnector,
  claude: (spec) => createAnthropicConnector(spec),
  codex: createCodexConnector,
  "github-copilot": createGithubCopilotConnector,
  "gemini-code-assist": createGeminiCodeAssistConnector,
  openrouter: (spec) => createOpenRouterConnector(spec),
  zai: (spec) => createZaiConnector(spec),
  kimi: createKimiConnector,
});

/**
 * A registry of the built-in connectors plus `extra` (which win on the same key), falling back
 * to the generic connectors.
 */
export function createConnectorRegistry(
  extra: Readonly<Record<string, ConnectorFactory>> = {},
): ConnectorRegistry {
  const factories = new Map<string, ConnectorFactory>();
  for (const [key, factory] of Object.entries({ ...BUILT_IN_CONNECTORS, ...extra })) {
    factories.set(key.toLowerCase(), factory);
  }
  const known = () => [...factories.keys()].sort();
  const choose = (connection: ConnectorIdentity): ConnectorChoice | null => {
    const id = connection.provider.trim().toLowerCase();
    const withAuth = `${id}/${connection.authType.trim().toLowerCase()}`;
    if (factories.has(withAuth)) return { kind: "own", key: withAuth };
    if (factories.has(id)) return { kind: "own", key: id };
    // A spec that names no wire speaks chat completions, as the plan connectors assume too.
    const protocol = connection.protocol ?? "openai-chat";
    return isGenericProtocol(protocol) ? { kind: "generic", protocol } : null;
  };
  // Operators read these by the config's protocol names.
  const unservedReason = (connection: ConnectorIdentity) =>
    `no connector for provider "${connection.provider}" (authType "${connection.authType}"), and protocol "${connection.protocol && configNameOf(connection.protocol)}" has no generic connector; providers with a connector of their own: ${known().join(", ")}; generic connectors: ${GENERIC_PROTOCOLS.map(configNameOf).join(", ")}`;
  return {
    create(spec, deps) {
      const choice = choose(spec);
      if (choice === null) {
        throw new ConnectorError({
          code: "unknown_provider",
          message: `connection ${spec.id}: ${unservedReason(spec)}`,
          connectionId: spec.id,
        });
      }
      if (choice.kind === "generic") return createGenericConnector(spec, choice.protocol);
      return factories.get(choice.key)!(spec, deps);
    },
    choose,
    unservedReason,
    known,
    has: (provider, authType, protocol) => choose({ provider, authType, protocol }) !== null,
  };
}
