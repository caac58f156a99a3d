import { GatewayError } from "../errors";
import type { ModelResolution, RoutingTable } from "./routing-table";

/**
 * The error for an id the routing table cannot resolve: `unknown_category` (listing the
 * defined categories) or `model_not_found`. Dispatch and explain both throw this one.
 */
export function unknownModelError(
  resolution: Extract<ModelResolution, { ok: false }>,
  table: RoutingTable,
): GatewayError {
  const unknownCategory = resolution.reason === "unknown_category";
  return new GatewayError({
    code: unknownCategory ? "unknown_category" : "model_not_found",
    message: resolution.message,
    details: unknownCategory ? { categories: table.categories } : {},
  });
}
