import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildCatalogJsonSchema, formatJsonSchemaFile } from "./json-schema";

const committed = readFileSync(new URL("../schema.json", import.meta.url), "utf8");

describe("schema.json", () => {
  it("matches a fresh generation from the zod schemas (run `pnpm generate-schema` after a change)", () => {
    expect(committed).toBe(formatJsonSchemaFile(buildCatalogJsonSchema()));
  });

  it("describes both data files and names the allowed enum values", () => {
    const schema = JSON.parse(committed);
    expect(schema.anyOf).toEqual([
      { $ref: "#/$defs/ConnectionsFile" },
      { $ref: "#/$defs/ModelsFile" },
    ]);
    expect(schema.$defs.ConnectionBillingEntry.properties.overage.enum).toEqual([
      "hard-stop",
      "meters-to-paid",
      "unknown",
    ]);
    expect(schema.$defs.ModelPrice.properties.inputPerMTok.minimum).toBe(0);
  });
});
