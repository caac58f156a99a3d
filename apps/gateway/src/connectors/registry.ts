import { createAnthropicConnector } from "./anthropic/anthropic-connector";
import { createClaudeOauthConnector } from "./claude-oauth/claude-oauth-connector";
import { createCodexConnector } from "./codex/codex-connector";
import type { UpstreamConnector } from "./connector";
import { ConnectorError } from "./connector-error";
import type { ConnectorDeps, ConnectorSpec } from "./connector-spec";
import { createGeminiCodeAssistConnector } from "./gemini-code-assist/gemini-code-assist-connector";
import { createGithubCopilotConnector } from "./github-copilot/github-copilot-connector";
import { createKimiConnector } from "./kimi/kimi-connector";
import { createOpenAiCompatibleConnector } from "./openai-compatible/openai-compatible-connector";
import { createOpenRouterConnector } from "./openrouter/openrouter-connector";
import { createZaiConnector } from "./zai/zai-connector";

/** Builds the connector of one connection. */
export type ConnectorFactory = (spec: ConnectorSpec, deps: ConnectorDeps) => UpstreamConnector;

/**
 * Provider ids served by the generic OpenAI-compatible connector (static key or keyless). A
 * provider with its own quirks gets its own folder instead.
 */
export const OPENAI_COMPATIBLE_PROVIDERS: readonly string[] = [
  "openai",
  "openai-compatible",
  "google",
  "groq",
  "deepseek",
  "mistral",
  "xai",
  "together",
  "fireworks",
  "cerebras",
  "ollama",
  "lmstudio",
  "vllm",
  "llamacpp",
];

/** Maps provider ids (optionally `provider/authType`) to connector factories. */
export interface ConnectorRegistry {
  /**
   * The connector for `spec`: the `provider/authType` entry if there is one, else the `provider`
   * entry. Throws ConnectorError `unknown_provider` listing the known ids otherwise.
   */
  create(spec: ConnectorSpec, deps: ConnectorDeps): UpstreamConnector;
  /** Registered keys (`codex`, `claude/oauth`…), sorted. */
  known(): string[];
  /** True when `create` would find a factory for this provider and auth type. */
  has(provider: string, authType: string): boolean;
}

/** The connectors planfirst ships, by key. */
export const BUILT_IN_CONNECTORS: Readonly<Record<string, ConnectorFactory>> = Object.freeze({
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
  ...Object.fromEntries(
    OPENAI_COMPATIBLE_PROVIDERS.map((id) => [
      id,
      (spec: ConnectorSpec) => createOpenAiCompatibleConnector(spec),
    ]),
  ),
});

/**
 * A registry of the built-in connectors plus `extra` (which win on the same key). Provider ids
 * are matched case-insensitively.
 */
export function createConnectorRegistry(
  extra: Readonly<Record<string, ConnectorFactory>> = {},
): ConnectorRegistry {
  const factories = new Map<string, ConnectorFactory>();
  for (const [key, factory] of Object.entries({ ...BUILT_IN_CONNECTORS, ...extra })) {
    factories.set(key.toLowerCase(), factory);
  }
  const lookup = (provider: string, authType: string) => {
    const id = provider.trim().toLowerCase();
    return factories.get(`${id}/${authType.trim().toLowerCase()}`) ?? factories.get(id);
  };
  return {
    create(spec, deps) {
      const factory = lookup(spec.provider, spec.authType);
      if (!factory) {
        throw new ConnectorError({
          code: "unknown_provider",
          message: `connection ${spec.id}: no connector for provider "${spec.provider}" (authType "${spec.authType}"); known: ${[...factories.keys()].sort().join(", ")}`,
          connectionId: spec.id,
        });
      }
      return factory(spec, deps);
    },
    known: () => [...factories.keys()].sort(),
    has: (provider, authType) => lookup(provider, authType) !== undefined,
  };
}
