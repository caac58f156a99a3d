import type { ConnectionConfig } from "@planfirst/gateway";

/** A connection `planfirst init` can write: the facts of one provider's endpoint. */
export interface ConnectionPreset {
  /** Canonical provider id. */
  provider: string;
  /** Connection id written into the config. */
  id: string;
  /** `oauth`, `apikey` or `none` (keyless). */
  authType: string;
  /** The wire spoken upstream (the Codex backend speaks the Responses API, Code Assist gemini). */
  protocol: ConnectionConfig["protocol"];
  /** Inference base URL; absent where the connector finds it itself (Copilot's `endpoints.api`). */
  baseUrl?: string;
  /** Environment variable holding the credential; absent for keyless servers and logins. */
  credentialEnv?: string;
  /**
   * Name of a login stored by `planfirst login import <name>` (written as
   * `credential: { login: NAME }`), for plans whose tokens are refreshed or exchanged.
   */
  credentialLogin?: string;
  /** Models the connection serves, first ones listed under the `coding` category. */
  models: readonly string[];
  /** One comment line written above the connection: what it is, where its credential comes from. */
  note: string;
}

/**
 * Connections `planfirst init` offers, in the order it lists them: one per connector the gateway
 * ships. Plans without a connector yet (antigravity, cursor) are not offered.
 */
export const CONNECTION_PRESETS: readonly ConnectionPreset[] = [
  {
    provider: "claude",
    id: "claude-max",
    authType: "oauth",
    protocol: "anthropic",
    baseUrl: "https://api.anthropic.com",
    credentialEnv: "CLAUDE_CODE_OAUTH_TOKEN",
    models: ["claude-sonnet-4-5", "claude-opus-4-1"],
    note: "Claude Pro/Max plan through a Claude Code login (`claude setup-token` prints the token)",
  },
  {
    provider: "codex",
    id: "chatgpt-codex",
    authType: "oauth",
    protocol: "openai-responses",
    baseUrl: "https://chatgpt.com/backend-api/codex",
    credentialLogin: "codex",
    models: ["gpt-5-codex"],
    note: "ChatGPT plan through the Codex backend (run `planfirst login import codex` after `codex login`)",
  },
  {
    provider: "github-copilot",
    id: "copilot",
    authType: "oauth",
    protocol: "openai",
    credentialLogin: "copilot",
    models: ["gpt-4.1", "claude-sonnet-4.5"],
    note: "GitHub Copilot seat (run `planfirst login import copilot` after signing in to Copilot)",
  },
  {
    provider: "gemini-code-assist",
    id: "gemini-code-assist",
    authType: "oauth",
    protocol: "gemini",
    credentialLogin: "gemini",
    models: ["gemini-2.5-pro", "gemini-2.5-flash"],
    note: "Gemini Code Assist login (run `planfirst login import gemini` after `gemini` Login with Google; set credential.clientSecret: env:NAME to the installed app's client secret)",
  },
  {
    provider: "zai",
    id: "zai-coding",
    authType: "apikey",
    protocol: "anthropic",
    baseUrl: "https://api.z.ai/api/anthropic",
    credentialEnv: "ZAI_API_KEY",
    models: ["glm-4.6"],
    note: "z.ai GLM Coding Plan (key from the z.ai console)",
  },
  {
    provider: "kimi",
    id: "kimi-coding",
    authType: "apikey",
    protocol: "anthropic",
    baseUrl: "https://api.kimi.com/coding",
    credentialEnv: "KIMI_API_KEY",
    models: ["kimi-for-coding"],
    note: "Kimi coding plan (key from the Kimi Code console); serves coding agents only, such as Claude Code",
  },
  {
    provider: "ollama",
    id: "local",
    authType: "none",
    protocol: "openai",
    baseUrl: "http://127.0.0.1:11434/v1",
    models: ["qwen2.5-coder:7b"],
    note: "local Ollama server, keyless",
  },
  {
    provider: "openrouter",
    id: "openrouter",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    credentialEnv: "OPENROUTER_API_KEY",
    models: ["qwen/qwen3-coder", "anthropic/claude-sonnet-4.5"],
    note: "OpenRouter, billed per token",
  },
  {
    provider: "anthropic",
    id: "anthropic-api",
    authType: "apikey",
    protocol: "anthropic",
    baseUrl: "https://api.anthropic.com",
    credentialEnv: "ANTHROPIC_API_KEY",
    models: ["claude-sonnet-4-5", "claude-haiku-4-5"],
    note: "Anthropic API key, billed per token",
  },
  {
    provider: "openai",
    id: "openai-api",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://api.openai.com/v1",
    credentialEnv: "OPENAI_API_KEY",
    models: ["gpt-5.5", "gpt-5.4-mini"],
    note: "OpenAI API key, billed per token",
  },
  {
    provider: "google",
    id: "gemini-api",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    credentialEnv: "GEMINI_API_KEY",
    models: ["gemini-2.5-pro", "gemini-2.5-flash"],
    note: "Gemini API key (OpenAI-compatible endpoint), billed per token",
  },
  {
    provider: "groq",
    id: "groq",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://api.groq.com/openai/v1",
    credentialEnv: "GROQ_API_KEY",
    models: ["openai/gpt-oss-120b"],
    note: "Groq, billed per token",
  },
  {
    provider: "deepseek",
    id: "deepseek",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://api.deepseek.com/v1",
    credentialEnv: "DEEPSEEK_API_KEY",
    models: ["deepseek-v4-flash", "deepseek-v4-pro"],
    note: "DeepSeek API, billed per token",
  },
  {
    provider: "mistral",
    id: "mistral",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://api.mistral.ai/v1",
    credentialEnv: "MISTRAL_API_KEY",
    models: ["codestral-2508"],
    note: "Mistral API, billed per token",
  },
  {
    provider: "xai",
    id: "xai",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://api.x.ai/v1",
    credentialEnv: "XAI_API_KEY",
    models: ["grok-code-fast-1"],
    note: "xAI API, billed per token",
  },
];

/** Providers `planfirst init` writes when none are chosen: a plan, a keyless server, a metered fallback. */
export const DEFAULT_INIT_PROVIDERS: readonly string[] = ["claude", "ollama", "openrouter"];

/** The preset of `provider` (case-insensitive), or undefined. */
export function findConnectionPreset(provider: string): ConnectionPreset | undefined {
  const wanted = provider.trim().toLowerCase();
  return CONNECTION_PRESETS.find((preset) => preset.provider === wanted);
}
