import { z } from "zod";
import { clientKeySchema } from "./client-key-schema";

/**
 * The request log (`server.requestLog`): one record per request, kept by the configured storage
 * driver and read with `GET /v1/requests`. Bounded by a record count and an age, whichever
 * removes more.
 */
const requestLogSchema = z.strictObject({
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

/** The request log section (`server.requestLog`). */
export type RequestLogConfig = z.infer<typeof requestLogSchema>;
