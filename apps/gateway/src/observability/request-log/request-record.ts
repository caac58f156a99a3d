import { z } from "zod";

/** One target a request tried, as the request log keeps it. */
const requestAttemptSchema = z.object({
  connection: z.string(),
  model: z.string(),
  rung: z.string(),
  /** `ok`, `rate_limited`, `budget_refused`, `cooling_down`, `timeout`, `network`, … */
  outcome: z.string(),
  /** The upstream's HTTP status; null when it never answered (skipped, refused, unreachable). */
  status: z.number().int().nullable(),
});

/** A token count; null when the upstream reported none (or nothing was served). */
const tokens = z.number().int().nonnegative().nullable();

/**
 * One request of the request log: where it went, what it cost, how long it took and how it
 * ended. It holds names, numbers and instants only: never a body, a prompt, a header value, a
 * client key or an upstream credential.
 */
export const requestRecordSchema = z.object({
  /** When the request arrived, ISO-8601 (the gateway's clock). */
  at: z.string(),
  requestId: z.string(),
  /** Id of the client key that sent it (`anonymous` when the gateway has no keys). */
  keyId: z.string(),
  /** The model id the client asked for (`auto/thrifty`, a concrete id); null when it gave none. */
  modelAsked: z.string().nullable(),
  /** Rung, connection and model of the target that answered; null when none did. */
  rung: z.string().nullable(),
  connection: z.string().nullable(),
  modelServed: z.string().nullable(),
  /** Every target tried, in order. */
  attempts: z.array(requestAttemptSchema),
  /** HTTP status answered to the client (499: the client left first). */
  status: z.number().int(),
  /**
   * How the request ended: `served`, a refusal's error code (`budget_exhausted`,
   * `plan_quota_exhausted`, …), `upstream_rejected_request`, `client_closed`, `stream_cut` or
   * `stream_error`.
   */
  outcome: z.string(),
  /** Prompt tokens, cached reads and cache writes included. */
  inputTokens: tokens,
  outputTokens: tokens,
  cachedInputTokens: tokens,
  cacheWriteTokens: tokens,
  /** US dollars booked on the spend ledger for it (0 on plans and free rungs). */
  costUsd: z.number().nonnegative(),
  /** Milliseconds from arrival to the answer's end (a stream's last byte). */
  latencyMs: z.number().nonnegative(),
  /** Milliseconds from arrival to the answer's first byte; null when nothing was answered. */
  ttfbMs: z.number().nonnegative().nullable(),
  /** Hash naming the request's session (session affinity); null when none was set. */
  sessionHash: z.string().nullable(),
  /** Client fields the gateway dropped translating the request (`x-planfirst-dropped`). */
  dropped: z.array(z.string()),
  /** Milliseconds the request waited for a plan before it was dispatched. */
  waitedMs: z.number().nonnegative(),
  /** The client asked for a stream. */
  stream: z.boolean(),
});

/** See {@link requestRecordSchema}. */
export type RequestRecord = z.infer<typeof requestRecordSchema>;

/** See {@link requestAttemptSchema}. */
export type RequestAttempt = z.infer<typeof requestAttemptSchema>;
