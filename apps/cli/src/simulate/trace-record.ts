/**
 * Which reader produced a record: Claude Code logs, Codex logs, a gateway's request log export
 * (`GET /v1/requests?format=jsonl`, `planfirst log --json`), or a generic trace.
 */
export type TraceSource = "claude-code" | "codex" | "request-log" | "generic";

/**
 * One request of a usage trace: only the usage fields, nothing else from the log. Token counts
 * follow the spend ledger's convention: `inputTokens` counts every prompt token, cached reads
 * and cache writes included.
 */
export interface TraceRecord {
  /** Epoch milliseconds of the request. */
  timeMs: number;
  /** Model id as the log names it. */
  model: string;
  /** All prompt tokens, `cachedInputTokens` and `cacheWriteTokens` included. */
  inputTokens: number;
  /** Completion tokens, reasoning included. */
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (part of `inputTokens`). */
  cachedInputTokens: number;
  /** Prompt tokens written to the provider's cache (part of `inputTokens`). */
  cacheWriteTokens: number;
  source: TraceSource;
}

/**
 * A real utilization reading found in a trace (Codex `rate_limits`): how much of a plan window
 * was used at `timeMs`. Used to calibrate a plan's allowance.
 */
export interface UtilizationReading {
  /** Epoch milliseconds of the reading. */
  timeMs: number;
  /** Provider whose plan the reading describes (`codex`). */
  provider: string;
  /** The reader whose log carried it: that log's records are the requests the reading counts. */
  source: TraceSource;
  /** Window length in minutes (300 = 5 h, 10080 = 7 d). */
  windowMinutes: number;
  /** Percent of the window used, 0..100. */
  usedPercent: number;
  /** Epoch milliseconds at which the window resets. */
  resetsAtMs: number;
}

/** A line a reader could not use, by file and 1-based line number; its content is never kept. */
export interface BadLine {
  file: string;
  line: number;
  /** Why the line was rejected (never quotes the line). */
  reason: string;
}

/** Everything read from a set of trace files. */
export interface Trace {
  /** Requests in time order (stable for equal times). */
  records: TraceRecord[];
  readings: UtilizationReading[];
  badLines: BadLine[];
  /** Files read, in the order read. */
  files: string[];
}
