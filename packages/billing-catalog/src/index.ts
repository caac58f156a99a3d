export type { Catalog } from "./catalog";
export { catalogSchema, connectionEntryKey, modelPriceKey } from "./catalog";
export type { CatalogMeta } from "./catalog-meta";
export { catalogMeta } from "./catalog-meta";
export { connectionBillingCatalog, modelPrices, modelPricesReadOn } from "./data";
export { mergeCatalog } from "./merge-catalog";
export type {
  ConnectionBillingClass,
  ConnectionBillingEntry,
  ConnectionOverageBehavior,
  ConnectionsFile,
  ModelPrice,
  ModelsFile,
} from "./schema";
export {
  connectionBillingClassSchema,
  connectionBillingEntrySchema,
  connectionOverageBehaviorSchema,
  connectionsFileSchema,
  isoDateSchema,
  modelPriceSchema,
  modelsFileSchema,
} from "./schema";
export type {
  CatalogProblem,
  CatalogProblemCode,
  CatalogValidationResult,
} from "./validate-catalog";
export { validateCatalog } from "./validate-catalog";
