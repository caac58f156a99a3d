import { z } from "zod";
import { envRefSchema } from "./env-ref-schema";

/**
 * A refreshable credential (a plan login): every secret an `env:NAME` reference, `login` the name
 * of a login stored by `planfirst login import`. At least one of them must be set.
 */
export const refreshableCredentialSchema = z
  .strictObject({
    /** A stored login (`planfirst login import codex|copilot|…`), by name. */
    login: z.string().min(1).optional(),
    refreshToken: envRefSchema.optional(),
    accessToken: envRefSchema.optional(),
    /** ChatGPT account id (Codex). */
    accountId: envRefSchema.optional(),
    /** GitHub OAuth token (Copilot), exchanged for session tokens. */
    githubToken: envRefSchema.optional(),
    /** Token endpoint; each connector has the provider's default. */
    tokenUrl: z.url().optional(),
    /** OAuth client id the refresh token was issued to; each connector has a default. */
    clientId: z.string().min(1).optional(),
    /**
     * `env:NAME` of the OAuth client secret the refresh grant must carry, for a provider whose
     * installed-app clients have one (Google: Gemini Code Assist). Never logged.
     */
    clientSecret: envRefSchema.optional(),
  })
  .refine(
    (credential) =>
      credential.login !== undefined ||
      credential.refreshToken !== undefined ||
      credential.accessToken !== undefined ||
      credential.githubToken !== undefined,
    "needs login, refreshToken, accessToken or githubToken",
  );
