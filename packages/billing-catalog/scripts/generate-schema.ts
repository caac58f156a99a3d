// Writes schema.json (the JSON Schema of the data files) at the package root from the zod schemas.
// Run after changing src/schema.ts; a test fails while the committed file differs.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildCatalogJsonSchema, formatJsonSchemaFile } from "../src/json-schema";

const target = fileURLToPath(new URL("../schema.json", import.meta.url));
writeFileSync(target, formatJsonSchemaFile(buildCatalogJsonSchema()));
console.log(`wrote ${target}`);
