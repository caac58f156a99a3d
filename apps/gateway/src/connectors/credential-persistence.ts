import { z } from "zod";

/** A credential as kept between restarts and shared by replicas. */
export const storedCredentialSchema = z.object({
  /** Provider the login belongs to (`codex`, `claude`, `github-copilot`, `gemini-code-assist`…). */
  provider: z.string().min(1),
  /** Short-lived token sent upstream; null until the first refresh or exchange. */
  accessToken: z.string().min(1).nullable(),
  /** Epoch ms at which `accessToken` stops working; null when unknown. */
  expiresAtMs: z.number().int().nullable(),
  /** Long-lived token the access token is refreshed with (for Copilot: the GitHub token). */
  refreshToken: z.string().min(1).nullable(),
  /** Non-secret extras the connector needs (`accountId`, `apiBase`, `clientId`…). */
  fields: z.record(z.string(), z.string()),
  /** Epoch ms of the last write. */
  updatedAtMs: z.number().int(),
});

/** A credential as kept between restarts and shared by replicas; see {@link storedCredentialSchema}. */
export type StoredCredential = z.infer<typeof storedCredentialSchema>;

/**
 * A stored credential read back from its JSON text, or null when the text is not JSON or not a
 * stored credential (an unreadable value is treated as absent, so the seed or a new login wins).
 */
export function parseStoredCredential(text: string): StoredCredential | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = storedCredentialSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/**
 * Where refreshed credentials live, by key (`login:<name>` or `connection:<id>`). The gateway backs
 * it with its store so a restart or a second replica needs no new login. Implementations never
 * log values.
 */
export interface CredentialPersistence {
  /** The credential under `key`, or null when none is stored (or the stored value is unreadable). */
  read(key: string): Promise<StoredCredential | null>;
  /** Replaces the credential under `key`. */
  write(key: string, credential: StoredCredential): Promise<void>;
  /** Keys stored, sorted; for `planfirst login` listings. */
  keys(): Promise<string[]>;
}

/** A {@link CredentialPersistence} in process memory (tests, single replica without a store). */
export function createMemoryCredentialPersistence(): CredentialPersistence {
  const entries = new Map<string, StoredCredential>();
  return {
    async read(key) {
      const value = entries.get(key);
      return value ? structuredClone(value) : null;
    },
    async write(key, credential) {
      entries.set(key, structuredClone(storedCredentialSchema.parse(credential)));
    },
    async keys() {
      return [...entries.keys()].sort();
    },
  };
}
