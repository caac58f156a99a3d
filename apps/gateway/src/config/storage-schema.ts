import { z } from "zod";

/** Why `storage.journalPath` must be set with `server.port: 0` (driver `redis`). */
export const JOURNAL_PATH_NEEDED =
  "is required with server.port 0: the default .planfirst/spend-journal-<port>.db needs a port that stays the same across restarts";

/** The fewest days of spend history a gateway keeps: a month's window and a day to spare. */
const MIN_SPEND_MAX_AGE_DAYS = 32;

/** Storage section: one store choice shared by quota state, cooldowns and the spend ledger. */
export const storageSchema = z.strictObject({
  driver: z.enum(["sqlite", "memory", "redis"]).default("sqlite"),
  /** SQLite file, relative to the working directory. */
  path: z.string().min(1).default(".planfirst/state.db"),
  /**
   * Redis URL (driver `redis`); default the local server. The one place the gateway names it:
   * every Redis client of a gateway (stores, request log, status history, key limits, stored
   * logins) connects here.
   */
  url: z.string().min(1).default("redis://127.0.0.1:6379"),
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
  /**
   * Days of spend history kept: the spend records and their per-minute sums, the finished
   * reservation ids kept to recognise a repeated settle, and the totals of budget windows that
   * have ended. Older history is removed hourly; budgets are never affected (a window that has
   * not ended and every live reservation stay). At least 32, so a client key's spend over a
   * whole budget window (a month at most) stays readable.
   */
  spendMaxAgeDays: z
    .number()
    .min(
      MIN_SPEND_MAX_AGE_DAYS,
      `must be at least ${MIN_SPEND_MAX_AGE_DAYS}: the spend of a whole budget window (a month at most) is read from this history`,
    )
    .default(90),
});
