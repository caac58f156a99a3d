import { z } from "zod";
import { CONFIG_PROTOCOL_NAMES } from "../protocols/registry";
import { refreshableCredentialSchema } from "./credential-schema";
import { envRefSchema } from "./env-ref-schema";

/** One plan window's allowance (see `connections[].planAllowances`): dollars or tokens, not both. */
const planAllowanceSchema = z
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

/** One configured upstream connection. */
export type ConnectionConfig = z.infer<typeof connectionSchema>;
