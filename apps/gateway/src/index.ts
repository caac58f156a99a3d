export type { AppContext, GatewayEnv } from "./app/app-context";
export {
  ANONYMOUS_CLIENT,
  type ClientIdentity,
  type ClientKeyVerifier,
  createClientKeyVerifier,
} from "./app/auth/client-keys";
export { type ConfigFinding, checkConfig } from "./app/check-config";
export { buildGatewayApp, createApp, type GatewayApp } from "./app/create-app";
export type { ClientKeyConfig } from "./config/client-key-schema";
export type { ConnectionConfig } from "./config/connection-schema";
export { configJsonSchema, configJsonSchemaText } from "./config/json-schema";
export { formatPath, loadConfigFile, parseConfig } from "./config/load-config";
export type { ConnectionChanges, ReloadOutcome } from "./config/reload-outcome";
export { RESTART_ONLY_SETTINGS } from "./config/restart-only";
export {
  type GatewayConfig,
  type GatewayConfigInput,
  gatewayConfigSchema,
} from "./config/schema";
export {
  type GatewayEnv as SecretEnv,
  type ResolvedClientKey,
  type ResolvedSecrets,
  resolveSecrets,
} from "./config/secrets";
export type { RequestLogConfig } from "./config/server-schema";
export type { SubscriptionLadderConfig } from "./config/subscription-ladder-schema";
export {
  type ConnectorDeps,
  ConnectorError,
  type ConnectorRegistry,
  type ConnectorSpec,
  type CredentialPersistence,
  createConnectorRegistry,
  createSqliteCredentialPersistence,
  jwtExpiryMs,
  type OnboardingPoll,
  type SqliteCredentialPersistence,
  type StoredCredential,
  type UpstreamConnector,
} from "./connectors";
export type {
  GatewayCooldowns,
  GatewayDeps,
  GatewayLedger,
  GatewayQuotaCache,
  GatewaySessions,
} from "./deps";
export { RECEIPT_HEADERS, type Receipt } from "./dispatch/receipt";
export { SESSION_HEADER } from "./dispatch/session-placement";
export {
  type AttemptRecord,
  ConfigError,
  GatewayError,
  type GatewayProblem,
} from "./errors";
export { type CreateGatewayOptions, createGateway, type Gateway } from "./gateway";
export { createLogger, REDACTED_LOG_PATHS } from "./observability/logger";
export { createMetrics, type GatewayMetrics } from "./observability/metrics";
export {
  type RequestAttempt,
  type RequestRecord,
  requestRecordSchema,
} from "./observability/request-log/request-record";
export { buildTargets, type DispatchTarget } from "./routing/build-pool";
export type { PoolLiveState } from "./routing/exclusions";
export {
  type ExplainSource,
  explainModel,
  explainSourceOf,
  type GatewayExclusion,
  type ModelExplanation,
  type SessionExplanation,
} from "./routing/explain-model";
export {
  type CandidateGroup,
  createRoutingTable,
  type RoutingTable,
} from "./routing/routing-table";
export {
  isSessionHash,
  SESSION_HEADERS,
  type SessionKey,
  type SessionKeySource,
  sessionKeyOf,
} from "./routing/session-key";
export {
  connectionLines,
  DEFAULT_CONFIG_FILE,
  EXAMPLE_CONFIG_FILE,
  isLoopbackHost,
  type RunningServer,
  type StartServerOptions,
  startServer,
} from "./server";
export { type GatewayStatus, gatewayStatus } from "./status/gateway-status";
