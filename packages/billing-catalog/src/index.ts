export { connectionBillingCatalog, modelPrices } from "./data";
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
