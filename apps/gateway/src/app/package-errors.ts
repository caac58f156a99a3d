import { randomUUID } from "node:crypto";
import { QuotaCacheError } from "@planfirst/quota-cache";
import { SpendLedgerError } from "@planfirst/spend-ledger";
import { TierResolverError } from "@planfirst/tier-resolver";
import type { Logger } from "pino";
import { ConnectorError } from "../connectors/connector-error";
import { spendStoreUnavailable } from "../dispatch/paid-refusals";
import { GatewayError } from "../errors";

/**
 * The gateway error for an error thrown by one of our packages, or undefined when `error` is
 * none of them. Every package code has its answer here, so no package error reaches a client as
 * a bare 500: a spend store that is down (or failing, or owned by another process) refuses the
 * paid request with `spend_store_unavailable`, since admitting it without the store could
 * overspend a budget; a ledger argument a client value broke is the client's `invalid_request`;
 * a connector that cannot get a token is `connector_failed`; option errors are `invalid_config`.
 * Messages are the packages' own, which never carry a credential.
 */
export function packageErrorToGateway(error: unknown): GatewayError | undefined {
  if (SpendLedgerError.isInstance(error)) {
    if (error.code === "invalid_argument") {
      return new GatewayError({
        code: "invalid_request",
        message: error.path ? `${error.path}: ${error.message}` : error.message,
        cause: error,
        details: error.path ? { path: error.path } : undefined,
      });
    }
    return spendStoreUnavailable(error);
  }
  if (ConnectorError.isInstance(error)) {
    const code =
      error.code === "unknown_provider" || error.code === "invalid_connector_config"
        ? "invalid_config"
        : "connector_failed";
    return new GatewayError({
      code,
      message: error.message,
      cause: error,
      details: error.connectionId ? { connection: error.connectionId } : undefined,
    });
  }
  if (QuotaCacheError.isInstance(error) || TierResolverError.isInstance(error)) {
    return new GatewayError({ code: "invalid_config", message: error.message, cause: error });
  }
  return undefined;
}

/**
 * An error nothing maps: logged at error with a fresh correlation id, answered as
 * `internal_error` carrying the same id (`error_id`) so an operator can find the log line. The
 * message is not copied to the client, since it might hold a secret.
 */
export function unknownError(logger: Logger, error: unknown): GatewayError {
  const errorId = randomUUID();
  logger.error({ err: error, errorId }, "unhandled error");
  return new GatewayError({
    code: "internal_error",
    message: `internal error (error id ${errorId})`,
    cause: error,
    details: { error_id: errorId },
  });
}
