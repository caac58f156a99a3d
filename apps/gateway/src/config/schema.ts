import { connectionBillingEntrySchema, modelPriceSchema } from "@planfirst/billing-catalog";
import { z } from "zod";
import { CONFIG_PROTOCOL_NAMES } from "../protocols/registry";

/** A secret reference: `env:NAME` names an environment variable; secrets are never literal. */
export const envRefSchema = z
  .string()
  .regex(
    /^env:[A-Za-z_][A-Za-z0-9_]*$/,
    "must be an env:NAME reference (secrets are never literal)",
  );

/** Rung names a budget may be set on; the quota rungs are refused later with rule B5. */
export const rungNameSchema = z.enum(["subscription", "keyless", "free", "cheap", "premium"]);

/** Budget window lengths (UTC by default, see `subscriptionLadder.budgetTimeZone`). */
export const budgetWindowSchema = z.enum(["day", "week", "month"]);

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

/**
 * The request log (`server.requestLog`): one record per request, kept by the configured storage
 * driver and read with `GET /v1/requests`. Bounded by a record count and an age, whichever
 * removes more.
 */
export const requestLogSchema = z.strictObject({
  /** Record every request (default true). */
  enabled: z.boolean().default(true),
  /** Most records kept; older ones are removed first. Default 100 000. */
  maxRecords: z.number().int().positive().default(100_000),
  /** Days a record is kept after its request arrived. Default 30. */
  maxAgeDays: z.number().positive().default(30),
});

/** Server section: where to listen, who may call, how large a request may be. */
export const serverSchema = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(4141),
  /** Client keys; none = the server only binds to a loopback address. */
  apiKeys: z.array(clientKeySchema).default([]),
  /** Largest accepted request body in bytes (default 32 MiB, the Anthropic API's own limit). */
  bodyLimitBytes: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** pino log level. */
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * Longest wait for a client's request headers, milliseconds (Node's `headersTimeout`); a slow
   * client cannot hold a socket open longer. Default 10 000.
   */
  headersTimeoutMs: z.number().int().positive().default(10_000),
  /**
   * Longest wait for a client's whole request, body included, milliseconds (Node's
   * `requestTimeout`). Default 60 000. The answer (a long stream) is not limited by it.
   */
  requestTimeoutMs: z.number().int().positive().default(60_000),
  /**
   * Re-read the config file whenever it changes (its folder is watched, so an editor that
   * replaces the file is followed), as `SIGHUP` and `planfirst reload` do. Default false.
   */
  reloadOnChange: z.boolean().default(false),
  requestLog: requestLogSchema.prefault({}),
});

/** Why `storage.journalPath` must be set with `server.port: 0` (driver `redis`). */
export const JOURNAL_PATH_NEEDED =
  "is required with server.port 0: the default .planfirst/spend-journal-<port>.db needs a port that stays the same across restarts";

/** Storage section: one store choice shared by quota state, cooldowns and the spend ledger. */
export const storageSchema = z.strictObject({
  driver: z.enum(["sqlite", "memory", "redis"]).default("sqlite"),
  /** SQLite file, relative to the working directory. */
  path: z.string().min(1).default(".planfirst/state.db"),
  /** Redis URL (driver `redis`). */
  url: z.string().min(1).optional(),
  /** Prefix of every Redis key, so several deployments can share one Redis. */
  keyPrefix: z.string().min(1).default("planfirst:"),
  /**
   * SQLite file where spend settles wait while Redis is unreachable (driver `redis`), replayed
   * when it is back; relative to the working directory like `path`. One per process. Default
   * `.planfirst/spend-journal-<server.port>.db`, so replicas started from one folder on
   * different ports each have their own and find it again after a restart; required with
   * `server.port: 0`, whose port changes at every start.
   */
  journalPath: z.string().min(1).optional(),
});

/** One plan window's allowance (see `connections[].planAllowances`): dollars or tokens, not both. */
export const planAllowanceSchema = z
  .strictObject({
    window: z
      .string()
      .regex(/^(?:[1-9]\d*[hd]|monthly)$/, "a window: 5h, 7d, monthly, or <n>h / <n>d"),
    usd: z.number().positive().optional(),
    tokens: z.number().int().positive().optional(),
  })
  .refine((entry) => (entry.usd === undefined) !== (entry.tokens === undefined), {
    message: "give the allowance as exactly one of usd or tokens",
  });

/**
 * A refreshable credential (a plan login): every secret an `env:NAME` reference, `login` the name
 * of a login stored by `planfirst login import`. At least one of them must be set.
 */
export const refreshableCredentialSchema = z
  .strictObject({
    /** A stored login (`planfirst login import codex|copilot|…`), by name. */
    login: z.string().min(1).optional(),
    refreshToken: envRefSchema.optional(),
    accessToken: envRefSchema.optional(),
    /** ChatGPT account id (Codex). */
    accountId: envRefSchema.optional(),
    /** GitHub OAuth token (Copilot), exchanged for session tokens. */
    githubToken: envRefSchema.optional(),
    /** Token endpoint; each connector has the provider's default. */
    tokenUrl: z.url().optional(),
    /** OAuth client id the refresh token was issued to; each connector has a default. */
    clientId: z.string().min(1).optional(),
    /**
     * `env:NAME` of the OAuth client secret the refresh grant must carry, for a provider whose
     * installed-app clients have one (Google: Gemini Code Assist). Never logged.
     */
    clientSecret: envRefSchema.optional(),
  })
  .refine(
    (credential) =>
      credential.login !== undefined ||
      credential.refreshToken !== undefined ||
      credential.accessToken !== undefined ||
      credential.githubToken !== undefined,
    "needs login, refreshToken, accessToken or githubToken",
  );

/** One upstream connection: a provider account reached through one wire protocol. */
export const connectionSchema = z.strictObject({
  /** Unique id, used in receipts, metrics, client-key scoping and the ladder explain. */
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be letters, digits, '.', '_' or '-'"),
  /**
   * Canonical provider id (`claude`, `codex`, `openrouter`, `ollama`, …). Any id without a
   * connector of its own (a coding plan planfirst does not ship, say) is served by the generic
   * connector of its `protocol`; its billing is the operator's `catalog.connections` entry.
   */
  provider: z.string().min(1),
  /** `oauth`, `apikey`, `none` (keyless) or a provider-specific value. */
  authType: z.string().min(1),
  /**
   * The wire spoken upstream, by its config name (each codec's `configName`). `openai`,
   * `anthropic` and `openai-responses` have a generic connector; `gemini` is spoken only by the
   * Gemini Code Assist connector.
   */
  protocol: z.enum(CONFIG_PROTOCOL_NAMES),
  /**
   * Inference base URL; optional where the provider's connector has a default, required for a
   * provider served by a generic connector.
   */
  baseUrl: z.url().optional(),
  /**
   * `env:NAME` of a static credential, or a refreshable login whose secrets are `env:NAME` too;
   * required unless authType is `none`.
   */
  credential: z.union([envRefSchema, refreshableCredentialSchema]).optional(),
  /** Concrete model ids this connection serves. */
  models: z.array(z.string().min(1)).min(1),
  /** Upstream timeout in milliseconds: to the response headers, and between body chunks. */
  timeoutMs: z.number().int().positive().default(120_000),
  /**
   * Time to the first byte of a streamed answer (its response headers), milliseconds; default
   * 30 000. A stream's headers come before generation, so a connection that has not answered
   * by then is cooled and the request falls through. A non-stream answer's headers only come
   * after the whole generation, so it waits `timeoutMs`.
   */
  firstByteTimeoutMs: z.number().int().positive().default(30_000),
  /**
   * Most requests this gateway process has in flight on the connection at once (a stream counts
   * until it ends or its client goes away); absent = no limit. A request that finds the
   * connection full passes it over for a later target, never cooling it; with none left it
   * waits in line for a slot (see `maxQueueWaitMs`).
   */
  maxConcurrent: z.number().int().positive().optional(),
  /**
   * Longest wait in line for a slot of a full connection (`maxConcurrent`), milliseconds;
   * default 30 000, 0 = no wait, at most 2 147 483 647 (the longest a Node timer waits). A
   * request still without a slot then gets `503 local_capacity` with `Retry-After: 1`: the
   * gateway's own limit, not an upstream failure.
   */
  maxQueueWaitMs: z.number().int().min(0).max(2_147_483_647).default(30_000),
  /** Extra headers sent upstream (no secrets: use `credential`). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Usage endpoint to poll for quota; each connector has the provider's default, if it has one. */
  usageUrl: z.url().optional(),
  /**
   * The upstream accepts a `prompt_cache_key` body field (an OpenAI-compatible server that
   * routes by it). Default: only where the connector knows the provider does (OpenAI, the
   * Codex backend); a strict server may refuse an unknown field, which would fail the request.
   */
  promptCacheKey: z.boolean().optional(),
  /**
   * What each of a plan's windows holds, for `planfirst simulate` only (routing never reads it:
   * live readings decide). One entry per window: `5h`, `7d`, `monthly`, or `<n>h` / `<n>d`, with
   * the allowance in API-equivalent US dollars (`usd`) or in tokens, input plus output (`tokens`).
   */
  planAllowances: z.array(planAllowanceSchema).optional(),
});

/** Operator catalog entries, same schema as `@planfirst/billing-catalog`, overriding it by key. */
export const catalogOverridesSchema = z.strictObject({
  connections: z.array(connectionBillingEntrySchema).default([]),
  models: z.array(modelPriceSchema).default([]),
});

/**
 * Session affinity (ladder.md §16): inside the rung the ladder chose, a conversation's next turn
 * goes first to the target that served its last one, where its prompt cache is.
 */
export const sessionAffinitySchema = z.strictObject({
  /**
   * A session with no request for this long is forgotten, milliseconds. Default 3 600 000
   * (1 h); 0 turns affinity off (no session is read, written or shown).
   */
  idleTtlMs: z.number().int().min(0).default(3_600_000),
  /** Most sessions remembered; past it the least recently served are dropped. Default 10 000. */
  maxEntries: z.number().int().positive().default(10_000),
});

/** True for a time zone name this runtime knows (`Intl` refuses the others). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Ladder tuning (ladder.md §11). There is deliberately no `enabled` flag. */
export const subscriptionLadderSchema = z.strictObject({
  exitCutoffPercent: z.number().min(0).max(100).default(2),
  reentryMinRemainingPercent: z.number().min(0).max(100).default(5),
  maxStateAgeMs: z.number().int().positive().default(180_000),
  /** USD per budget window per paid rung; 0 disables a rung; absent = unbudgeted. */
  rungBudgetUsd: z.partialRecord(rungNameSchema, z.number()).default({}),
  budgetWindow: budgetWindowSchema.default("day"),
  /** IANA time zone the budget window follows (default UTC). */
  budgetTimeZone: z
    .string()
    .min(1)
    .refine(isTimeZone, "must be an IANA time zone such as UTC or Europe/Paris")
    .default("UTC"),
  sessionAffinity: sessionAffinitySchema.prefault({}),
  /**
   * How long an `auto/subscription` request waits for a plan that resets soon, milliseconds,
   * when it does not say (`x-planfirst-max-wait`). Default 0: an empty pool is refused at once.
   */
  maxWaitMs: z.number().int().min(0).default(0),
  /**
   * How long an `auto/thrifty` request waits for a plan that resets soon before it climbs to a
   * paid rung, milliseconds, when it does not say. Default 0: it climbs at once.
   */
  maxWaitBeforePaidMs: z.number().int().min(0).default(0),
  /** The longest wait any request may ask for or be given, milliseconds. Default 600 000. */
  maxWaitCapMs: z.number().int().min(0).default(600_000),
  /**
   * Requests that may wait for one plan connection at once; the next is answered at once, as
   * if it had not asked to wait. Default 256.
   */
  maxWaiting: z.number().int().min(0).default(256),
  /**
   * A streaming request that has waited this long gets its response headers and keep-alive
   * frames until its answer starts, milliseconds. Default 10 000.
   */
  heldStreamHeadersAfterMs: z.number().int().min(0).default(10_000),
  /** Time between two keep-alive frames of a held stream, milliseconds. Default 5 000. */
  heldStreamKeepAliveMs: z.number().int().positive().default(5_000),
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
/** One configured upstream connection. */
export type ConnectionConfig = z.infer<typeof connectionSchema>;
/** A configured refreshable credential (env references unresolved). */
export type RefreshableCredentialConfig = z.infer<typeof refreshableCredentialSchema>;
/** One configured client key entry. */
export type ClientKeyConfig = z.infer<typeof clientKeySchema>;
/** The request log section (`server.requestLog`). */
export type RequestLogConfig = z.infer<typeof requestLogSchema>;
/** Ladder tuning section. */
export type SubscriptionLadderConfig = z.infer<typeof subscriptionLadderSchema>;
