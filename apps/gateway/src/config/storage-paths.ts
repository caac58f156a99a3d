import { ConfigError } from "../errors";
import { type GatewayConfig, JOURNAL_PATH_NEEDED } from "./schema";

/**
 * The spend journal file of this gateway process (driver `redis`): `storage.journalPath`, else
 * `.planfirst/spend-journal-<server.port>.db`. One file per port, so several replicas started
 * from one folder need no setting and each finds its own journal again after a restart.
 *
 * @throws ConfigError with port 0 and no explicit path: an OS-chosen port changes at every
 *   start, and a journal that is not found again loses the settles it kept
 */
export function spendJournalPath(config: Pick<GatewayConfig, "server" | "storage">): string {
  if (config.storage.journalPath !== undefined) return config.storage.journalPath;
  if (config.server.port === 0) {
    throw new ConfigError({
      code: "invalid_config",
      message: "no spend journal file for a gateway on port 0",
      problems: [{ path: "storage.journalPath", message: JOURNAL_PATH_NEEDED }],
    });
  }
  return `.planfirst/spend-journal-${config.server.port}.db`;
}
