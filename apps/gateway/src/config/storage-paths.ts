import { ConfigError } from "../errors";
import type { GatewayConfig } from "./schema";
import { JOURNAL_PATH_NEEDED } from "./storage-schema";

/**
 * The spend journal file of a gateway process on `port` (driver `redis`): `storage.journalPath`,
 * else `.planfirst/spend-journal-<port>.db`. One file per port, so several replicas started
 * from one folder need no setting and each finds its own journal again after a restart.
 *
 * @throws ConfigError with port 0 and no explicit path: an OS-chosen port changes at every
 *   start, and a journal that is not found again loses the settles it kept
 */
export function spendJournalPath(storage: GatewayConfig["storage"], port: number): string {
  if (storage.journalPath !== undefined) return storage.journalPath;
  if (port === 0) {
    throw new ConfigError({
      code: "invalid_config",
      message: "no spend journal file for a gateway on port 0",
      problems: [{ path: "storage.journalPath", message: JOURNAL_PATH_NEEDED }],
    });
  }
  return `.planfirst/spend-journal-${port}.db`;
}
