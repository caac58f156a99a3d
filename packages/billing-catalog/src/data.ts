import connectionsFile from "../data/connections.json" with { type: "json" };
import modelsFile from "../data/models.json" with { type: "json" };
import type { ConnectionBillingEntry, ModelPrice } from "./schema";

/**
 * The curated connection billing entries shipped with this version of the catalog. Validated by
 * the package's tests and `validate` script, not at import.
 */
export const connectionBillingCatalog: readonly ConnectionBillingEntry[] =
  connectionsFile.connections as ConnectionBillingEntry[];

/** The curated model prices (USD per 1M tokens) shipped with this version of the catalog. */
export const modelPrices: readonly ModelPrice[] = modelsFile.models as ModelPrice[];

/** ISO date (`YYYY-MM-DD`) the shipped model prices were read from the providers' pages. */
export const modelPricesReadOn: string = modelsFile.pricesReadOn;
