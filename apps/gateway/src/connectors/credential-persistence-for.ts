import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { GatewayConfig } from "../config/schema";
import {
  type CredentialPersistence,
  createMemoryCredentialPersistence,
} from "./credential-persistence";
import { createRedisCredentialPersistence } from "./redis-credential-persistence";
import { createSqliteCredentialPersistence } from "./sqlite-credential-persistence";

/** A credential persistence the gateway closes when it stops. */
type ClosableCredentialPersistence = CredentialPersistence & {
  close(): Promise<void> | void;
};

/**
 * Where refreshed tokens live for a storage choice: the SQLite state file (table
 * `planfirst_credentials`, where `planfirst login import` writes), process memory, or a Redis
 * hash under the deployment's key prefix so replicas share one rotated refresh token.
 */
export function credentialPersistenceFor(
  storage: GatewayConfig["storage"],
): ClosableCredentialPersistence {
  if (storage.driver === "memory") return { ...createMemoryCredentialPersistence(), close() {} };
  if (storage.driver === "redis") {
    return createRedisCredentialPersistence({
      url: storage.url,
      keyPrefix: storage.keyPrefix,
    });
  }
  mkdirSync(dirname(storage.path), { recursive: true });
  return createSqliteCredentialPersistence(storage.path);
}
