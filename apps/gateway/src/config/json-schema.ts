import { z } from "zod";
import { gatewayConfigSchema } from "./schema";

/**
 * JSON Schema (draft 2020-12) of the configuration file as written (defaults optional), for
 * editor completion. `config.schema.json` at the package root is this, committed.
 */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(gatewayConfigSchema, { io: "input", unrepresentable: "any" }),
    title: "planfirst gateway configuration",
  };
}

/** The committed file's exact text: the schema, two-space indented, with a final newline. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
