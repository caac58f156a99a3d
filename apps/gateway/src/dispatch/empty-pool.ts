import type { AttemptRecord } from "../errors";
import { GatewayError } from "../errors";
import type { ConnectionReason } from "../routing/explain-model";
import { retryAfterSeconds } from "./retry-after";

/** What `emptyPoolError` needs: the request's id, its grouping and how to read the reasons. */
interface EmptyPool {
  modelId: string;
  grouping: "subscription" | "thrifty";
  /** Epoch ms the earliest connection could serve again (`earliestPoolReturnMs`), if known. */
  returnAtMs: number | undefined;
  nowMs: number;
  /** Why each connection is out; called once, only when the error is built. */
  reasons: () => readonly ConnectionReason[];
  /** Attempts made before the pool ran dry (none when it was empty from the start). */
  attempts?: readonly AttemptRecord[];
}

/**
 * The error for a request with no target left. `auto/subscription` (and its composites) is
 * `plan_quota_exhausted` with `Retry-After` = seconds to the earliest useful plan reset and the
 * reason per connection (SUB6); other ids are `no_available_target`, with a `Retry-After` when
 * a reset or cooldown end is known.
 */
export function emptyPoolError(pool: EmptyPool): GatewayError {
  const retryAfterSec = retryAfterSeconds(pool.returnAtMs, pool.nowMs);
  const details: Record<string, unknown> = { reasons: pool.reasons() };
  if (pool.attempts && pool.attempts.length > 0) details.attempts = pool.attempts;
  if (retryAfterSec !== undefined && pool.returnAtMs !== undefined) {
    details.retry_after_seconds = retryAfterSec;
    details.resets_at = new Date(pool.returnAtMs).toISOString();
  }
  if (pool.grouping === "subscription") {
    const when =
      retryAfterSec !== undefined ? `; the earliest plan reset is in ${retryAfterSec} s` : "";
    return new GatewayError({
      code: "plan_quota_exhausted",
      message: `no plan connection with verified headroom can serve ${pool.modelId}${when}`,
      details,
      retryAfterSec,
    });
  }
  return new GatewayError({
    code: "no_available_target",
    message: `no connection can serve ${pool.modelId} right now`,
    details,
    retryAfterSec,
  });
}
