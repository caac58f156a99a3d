import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configJsonSchemaText } from "../src/config/json-schema";

// Writes config.schema.json next to package.json (run biome on it after); a test fails when the
// committed schema drifts from the zod schema.
const target = fileURLToPath(new URL("../config.schema.json", import.meta.url));
writeFileSync(target, configJsonSchemaText());
console.log(`wrote ${target}`);
