import { SpendLedgerError } from "@planfirst/spend-ledger";
import { ConfigError } from "../errors";

/**
 * Opens the spend store (or its journal) file `path`, set by config option `option`, with `open`, turning `store_locked` (another
 * process owns the file) into a start-up `ConfigError` that names the file and says what to
 * change, instead of a stack trace. Two replicas on one machine need one journal each.
 */
export function openSpendStore<T>(option: string, path: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (SpendLedgerError.isInstance(error) && error.code === "store_locked") {
      throw new ConfigError({
        code: "invalid_config",
        message: `spend store file ${path} is owned by another running gateway`,
        problems: [
          {
            path: option,
            message: `${error.message}; give each gateway process its own file, or stop the other one`,
          },
        ],
        cause: error,
      });
    }
    throw error;
  }
}
