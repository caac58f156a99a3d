import { z } from "zod";
import { catalogSchema } from "./catalog";
import {
  connectionBillingEntrySchema,
  connectionsFileSchema,
  modelPriceSchema,
  modelsFileSchema,
} from "./schema";

/**
 * Builds the JSON Schema (draft 2020-12) of the catalog's data files from the zod schemas: a
 * document matches when it is a connections file or a models file. Every shape is also under
 * `$defs` (`ConnectionsFile`, `ModelsFile`, `Catalog`, `ConnectionBillingEntry`, `ModelPrice`) so
 * other schemas can reference them. Pure: the same input always gives the same object.
 */
export function buildCatalogJsonSchema(): Record<string, unknown> {
  // A local registry keeps ids off zod's global registry (no shared mutable state).
  const registry = z.registry<{ id: string }>();
  registry.add(connectionsFileSchema, { id: "ConnectionsFile" });
  registry.add(modelsFileSchema, { id: "ModelsFile" });
  registry.add(catalogSchema, { id: "Catalog" });
  registry.add(connectionBillingEntrySchema, { id: "ConnectionBillingEntry" });
  registry.add(modelPriceSchema, { id: "ModelPrice" });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    uri: (id) => `#/$defs/${id}`,
  });
  const defs: Record<string, unknown> = {};
  for (const id of Object.keys(schemas).sort()) {
    // The registry writes $schema and a fragment $id into each entry; neither belongs in $defs.
    const { $schema: _schema, $id: _id, ...definition } = schemas[id] as Record<string, unknown>;
    defs[id] = definition;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "@planfirst/billing-catalog data file",
    description:
      "A connections file (billing entries) or a models file (prices in USD per 1M tokens).",
    anyOf: [{ $ref: "#/$defs/ConnectionsFile" }, { $ref: "#/$defs/ModelsFile" }],
    $defs: defs,
  };
}
/** Serialises a JSON Schema the way `schema.json` is committed: two-space indent, final newline. */
export function formatJsonSchemaFile(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
