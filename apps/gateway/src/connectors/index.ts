export {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_FORWARDED_HEADERS,
  ANTHROPIC_VERSION,
  type AnthropicConnectorOptions,
  anthropicMessagesUrl,
  anthropicRequestHeaders,
  createAnthropicConnector,
} from "./anthropic/anthropic-connector";
export {
  ANTHROPIC_OAUTH_BETA,
  CLAUDE_CODE_CLIENT_ID,
  CLAUDE_DEFAULT_TOKEN_URL,
  createClaudeOauthConnector,
} from "./claude-oauth/claude-oauth-connector";
export {
  CODEX_CLI_CLIENT_ID,
  CODEX_DEFAULT_BASE_URL,
  CODEX_DEFAULT_TOKEN_URL,
  CODEX_FORWARDED_HEADERS,
  CODEX_STREAM_EVENTS,
  codexUsageUrl,
  createCodexConnector,
} from "./codex/codex-connector";
export {
  type ConnectorCall,
  identityHeaders,
  PLANFIRST_USER_AGENT,
  type PreparedRequest,
  type UpstreamAnswer,
  type UpstreamConnector,
  type UsageReading,
  type UsageRequest,
} from "./connector";
export { credentialKey } from "./connector-credential";
export { ConnectorError, type ConnectorErrorCode } from "./connector-error";
export {
  type ConnectorDeps,
  type ConnectorSpec,
  connectorSpecSchema,
  type OnboardingPoll,
  type RefreshableCredentialSpec,
  refreshableCredentialSpecSchema,
} from "./connector-spec";
export {
  type CredentialPersistence,
  createMemoryCredentialPersistence,
  type StoredCredential,
  storedCredentialSchema,
} from "./credential-persistence";
export {
  type CredentialRefresher,
  type CredentialSource,
  createRefreshableCredential,
  createStaticCredential,
  type RefreshableCredentialOptions,
} from "./credential-source";
export {
  createGenericConnector,
  describeGenericConnector,
  GENERIC_PROTOCOLS,
  type GenericProtocol,
  isGenericProtocol,
} from "./generic/generic-connector";
export {
  COPILOT_DEFAULT_TOKEN_URL,
  type CopilotSessionToken,
  exchangeCopilotToken,
} from "./github-copilot/copilot-token-exchange";
export {
  COPILOT_DEFAULT_INTEGRATION_ID,
  COPILOT_DEFAULT_USER_URL,
  COPILOT_FORWARDED_HEADERS,
  COPILOT_REFRESH_SKEW_MS,
  createGithubCopilotConnector,
  nextMonthlyResetIso,
} from "./github-copilot/github-copilot-connector";
export {
  createKimiConnector,
  KIMI_CODE_CLIENT_ID,
  KIMI_DEFAULT_BASE_URL,
  KIMI_DEFAULT_TOKEN_URL,
} from "./kimi/kimi-connector";
export { parseKimiUsage } from "./kimi/kimi-usage";
export { jwtExpiryMs, type OauthTokenResponse, refreshTokenGrant } from "./oauth-refresh";
export {
  createOpenAiCompatibleConnector,
  type OpenAiCompatibleConnectorOptions,
} from "./openai-compatible/openai-compatible-connector";
export {
  createOpenRouterConnector,
  OPENROUTER_DEFAULT_BASE_URL,
} from "./openrouter/openrouter-connector";
export {
  BUILT_IN_CONNECTORS,
  type ConnectorChoice,
  type ConnectorFactory,
  type ConnectorIdentity,
  type ConnectorRegistry,
  createConnectorRegistry,
} from "./registry";
export {
  createSqliteCredentialPersistence,
  type SqliteCredentialPersistence,
} from "./sqlite-credential-persistence";
export { createZaiConnector, ZAI_DEFAULT_BASE_URL } from "./zai/zai-connector";
export {
  classifyZaiFailure,
  ZAI_QUOTA_CODES,
  zaiResetFromMessage,
} from "./zai/zai-failure";
export { parseZaiUsage, zaiUsageRefusal } from "./zai/zai-usage";
