import { z } from "zod";
import { PROTOCOL_NAMES } from "../protocols/registry";

/**
 * A refreshable credential with its `env:` references already resolved. `login` names a login
 * stored by `planfirst login import`; the other values seed it when nothing is stored yet.
 */
const refreshableCredentialSpecSchema = z.object({
  login: z.string().min(1).optional(),
  refreshToken: z.string().min(1).optional(),
  accessToken: z.string().min(1).optional(),
  /** ChatGPT account id (Codex), sent as `chatgpt-account-id`. */
  accountId: z.string().min(1).optional(),
  /** GitHub OAuth token (Copilot), exchanged for a session token, never sent to inference. */
  githubToken: z.string().min(1).optional(),
  tokenUrl: z.url().optional(),
  clientId: z.string().min(1).optional(),
  /** OAuth client secret sent with the refresh grant (Google installed apps). */
  clientSecret: z.string().min(1).optional(),
});

/** A resolved refreshable credential; see {@link refreshableCredentialSpecSchema}. */
export type RefreshableCredentialSpec = z.infer<typeof refreshableCredentialSpecSchema>;

/**
 * What a connector needs of one configured connection, secrets resolved. `credential` is the
 * static secret (an `env:` value), a refreshable credential, or absent for a keyless server.
 */
const connectorSpecSchema = z.object({
  id: z.string().min(1),
  provider: z.string().min(1),
  authType: z.string().min(1),
  /** The wire spoken upstream (the config's value turned into its protocol name). */
  protocol: z.enum(PROTOCOL_NAMES).optional(),
  /** Inference base URL; each connector has a default where the provider has one. */
  baseUrl: z.url().optional(),
  /** Usage endpoint; each connector has a default where the provider has one. */
  usageUrl: z.url().optional(),
  /** Extra non-secret headers from the config. Auth headers always win over them. */
  headers: z.record(z.string(), z.string()).optional(),
  credential: z.union([z.string().min(1), refreshableCredentialSpecSchema]).optional(),
});

/** One connection as its connector sees it; see {@link connectorSpecSchema}. */
export type ConnectorSpec = z.infer<typeof connectorSpecSchema>;
