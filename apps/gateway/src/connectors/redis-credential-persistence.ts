import { createLazyRedis } from "../redis-client";
import {
  type CredentialPersistence,
  parseStoredCredential,
  type StoredCredential,
  storedCredentialSchema,
} from "./credential-persistence";

/** A {@link CredentialPersistence} on Redis, plus `close()`. */
interface RedisCredentialPersistence extends CredentialPersistence {
  /** Closes its Redis connection. */
  close(): Promise<void>;
}

/** Options of {@link createRedisCredentialPersistence}. */
interface RedisCredentialPersistenceOptions {
  /** Redis URL (`storage.url`). */
  url: string;
  /** Prefix of the gateway's keys (`storage.keyPrefix`); the hash is `{prefix}credentials`. */
  keyPrefix: string;
}

/**
 * Keeps credentials in one Redis hash, `{keyPrefix}credentials`, field = credential key, value =
 * the stored credential as JSON. Every replica of a deployment reads the same hash, so a token
 * one replica refreshed (and the refresh token it rotated) is what the others adopt on their next
 * refresh instead of spending the old, already used refresh token.
 */
export function createRedisCredentialPersistence(
  options: RedisCredentialPersistenceOptions,
): RedisCredentialPersistence {
  const { client } = createLazyRedis(options.url, { maxRetriesPerRequest: 1 });
  const hash = `${options.keyPrefix}credentials`;
  return {
    async read(key) {
      const text = await client.hget(hash, key);
      if (text === null) return null;
      return parseStoredCredential(text);
    },
    async write(key, credential: StoredCredential) {
      const valid = storedCredentialSchema.parse(credential);
      await client.hset(hash, key, JSON.stringify(valid));
    },
    async keys() {
      return (await client.hkeys(hash)).sort();
    },
    async close() {
      client.disconnect();
    },
  };
}
