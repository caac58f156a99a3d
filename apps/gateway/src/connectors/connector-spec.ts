import type { CredentialPersistence } from "./credential-persistence";

// A connection with its secrets resolved is the config's own notion; connectors take it as is.
export {
  type ConnectorSpec,
  connectorSpecSchema,
  type RefreshableCredentialSpec,
  refreshableCredentialSpecSchema,
} from "../config/connection-spec";

/** What connector factories share: credential persistence and the clock. */
export interface ConnectorDeps {
  persistence: CredentialPersistence;
  /** Clock, epoch ms. */
  now: () => number;
  /** Refresh a token this long before it expires, ms; default per connector (60 s, Copilot 5 min). */
  refreshSkewMs?: number;
}
