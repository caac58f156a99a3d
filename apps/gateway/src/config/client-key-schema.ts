import { z } from "zod";
import { envRefSchema } from "./env-ref-schema";
import { budgetWindowSchema } from "./subscription-ladder-schema";

/**
 * A client key allowed to call the gateway: a bare `env:NAME`, or an entry that names the key
 * and may limit it to some connections, give it a budget and rate limits, and make it an admin.
 */
export const clientKeySchema = z.union([
  envRefSchema,
  z.strictObject({
    /** `env:NAME` holding the key the client sends. */
    key: envRefSchema,
    /** Stable id of the key, recorded in spend records and logs instead of the key itself. */
    id: z.string().min(1),
    /** Connection ids this key may use; absent = every connection. */
    connections: z.array(z.string().min(1)).optional(),
    /**
     * `admin` sees everything (every key's spend, `/metrics`); `client` sees only its own spend
     * and the connections it may use. Default `client`.
     */
    role: z.enum(["admin", "client"]).default("client"),
    /**
     * Metered spend of this key over every paid rung, USD per `budgetWindow`; absent = no key
     * budget (the rungs' budgets still apply), 0 = no paid rung for this key.
     */
    budgetUsd: z
      .number()
      .min(0, "must be a number of USD ≥ 0 (0 = no paid rung for this key)")
      .max(9e9, "must be below 9e9 USD")
      .optional(),
    /** Window of `budgetUsd`; default `subscriptionLadder.budgetWindow`. */
    budgetWindow: budgetWindowSchema.optional(),
    /** Requests of this key in flight at once (a stream counts until it ends); absent = no limit. */
    maxConcurrent: z
      .number()
      .int("must be a whole number of requests")
      .min(1, "must be at least 1 (remove it for no limit)")
      .optional(),
    /** Requests of this key started in any 60 s, per gateway process; absent = no limit. */
    requestsPerMinute: z
      .number()
      .int("must be a whole number of requests")
      .min(1, "must be at least 1 (remove it for no limit)")
      .optional(),
  }),
]);

/** One configured client key entry. */
export type ClientKeyConfig = z.infer<typeof clientKeySchema>;
