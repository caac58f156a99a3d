import { connectionBillingEntrySchema, modelPriceSchema } from "@planfirst/billing-catalog";
import { z } from "zod";
import { connectionSchema } from "./connection-schema";
import { serverSchema } from "./server-schema";
import { JOURNAL_PATH_NEEDED, storageSchema } from "./storage-schema";
import { subscriptionLadderSchema } from "./subscription-ladder-schema";

/** Operator catalog entries, same schema as `@planfirst/billing-catalog`, overriding it by key. */
const catalogOverridesSchema = z.strictObject({
  connections: z.array(connectionBillingEntrySchema).default([]),
  models: z.array(modelPriceSchema).default([]),
});

const categoryNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, "category names are lowercase words ([a-z][a-z0-9-]*)");

/** The whole gateway configuration file (YAML or JSON). */
export const gatewayConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    server: serverSchema.prefault({}),
    storage: storageSchema.prefault({}),
    connections: z.array(connectionSchema).default([]),
    catalog: catalogOverridesSchema.prefault({}),
    /** Category → model globs (`*`, `?`), used by `auto/<category>:<tier>`. */
    categories: z.record(categoryNameSchema, z.array(z.string().min(1)).min(1)).default({}),
    subscriptionLadder: subscriptionLadderSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.connections.forEach((connection, index) => {
      if (seen.has(connection.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["connections", index, "id"],
          message: `duplicate connection id "${connection.id}"`,
        });
      }
      seen.add(connection.id);
      if (connection.authType === "none" && connection.credential !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["connections", index, "credential"],
          message: 'a keyless connection (authType "none") takes no credential',
        });
      }
      if (connection.authType !== "none" && connection.credential === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["connections", index, "credential"],
          message: `required for authType "${connection.authType}" (an env:NAME reference or a login object); use authType "none" for a keyless server`,
        });
      }
    });
    if (
      config.storage.driver === "redis" &&
      config.storage.journalPath === undefined &&
      config.server.port === 0
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["storage", "journalPath"],
        message: JOURNAL_PATH_NEEDED,
      });
    }
    const keyIds = new Set<string>();
    config.server.apiKeys.forEach((key, index) => {
      if (typeof key === "string") return;
      if (keyIds.has(key.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["server", "apiKeys", index, "id"],
          message: `duplicate client key id "${key.id}"`,
        });
      }
      keyIds.add(key.id);
      if (key.budgetWindow !== undefined && key.budgetUsd === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["server", "apiKeys", index, "budgetWindow"],
          message: "is the window of budgetUsd, which this key does not set",
        });
      }
      key.connections?.forEach((connectionId, connectionIndex) => {
        if (!seen.has(connectionId)) {
          ctx.addIssue({
            code: "custom",
            path: ["server", "apiKeys", index, "connections", connectionIndex],
            message: `unknown connection "${connectionId}"; allowed: ${[...seen].join(", ") || "(none configured)"}`,
          });
        }
      });
    });
  });

/** A validated configuration with every default filled in. */
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
/** The configuration as written in a file (defaults optional). */
export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
