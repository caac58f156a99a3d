/**
 * A duration as the two largest units that matter: `3d 4h`, `2h 14m`, `5m 10s`, `45s`.
 * Negative durations are treated as 0 (`0s`).
 *
 * @param durationMs milliseconds
 */
export function formatDuration(durationMs: number): string {
  const totalSeconds = Math.max(0, Math.floor(durationMs / 1000));
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds}s`;
  return `${seconds}s`;
}

/**
 * The reset countdown shown beside a quota bar: `resets in 2h 14m`; `reset passed` once the
 * instant is at or before `nowMs` (the reading is stale, rule S2); `reset unknown` when there is
 * no parseable instant.
 *
 * @param resetAt ISO-8601 instant
 * @param nowMs epoch milliseconds
 */
export function formatResetCountdown(resetAt: string | null | undefined, nowMs: number): string {
  const resetMs = resetAt ? Date.parse(resetAt) : Number.NaN;
  if (Number.isNaN(resetMs)) return "reset unknown";
  if (resetMs <= nowMs) return "reset passed";
  return `resets in ${formatDuration(resetMs - nowMs)}`;
}
