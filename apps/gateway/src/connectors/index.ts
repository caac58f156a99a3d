export type { UpstreamConnector } from "./connector";
export { ConnectorError } from "./connector-error";
export type { ConnectorDeps, ConnectorSpec, OnboardingPoll } from "./connector-spec";
export type { CredentialPersistence, StoredCredential } from "./credential-persistence";
export { jwtExpiryMs } from "./oauth-refresh";
export { type ConnectorRegistry, createConnectorRegistry } from "./registry";
export {
  createSqliteCredentialPersistence,
  type SqliteCredentialPersistence,
} from "./sqlite-credential-persistence";
