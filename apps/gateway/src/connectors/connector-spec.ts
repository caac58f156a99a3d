import type { CredentialPersistence } from "./credential-persistence";

// A connection with its secrets resolved is the config's own notion; connectors take it as is.
export type { ConnectorSpec, RefreshableCredentialSpec } from "../config/connection-spec";

/** How a long-running account setup a connector starts (Code Assist onboarding) is polled. */
export interface OnboardingPoll {
  /** Wait between two reads of the operation, ms. */
  intervalMs: number;
  /** Reads of the operation after it was started, before giving up. */
  maxPolls: number;
}

/** What connector factories share: credential persistence and the clock. */
export interface ConnectorDeps {
  persistence: CredentialPersistence;
  /** Clock, epoch ms. */
  now: () => number;
  /** Refresh a token this long before it expires, ms; default per connector (60 s, Copilot 5 min). */
  refreshSkewMs?: number;
  /** How an account setup the connector starts is polled (Code Assist onboarding); default 5 s × 12. */
  onboardingPoll?: OnboardingPoll;
}
