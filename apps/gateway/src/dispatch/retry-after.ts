/**
 * Whole seconds from `nowMs` until `untilMs` for a `Retry-After` header, at least 1; undefined
 * when the instant is unknown, unparseable or not in the future. The one Retry-After formula.
 *
 * @param until epoch milliseconds or an ISO-8601 instant
 */
export function retryAfterSeconds(
  until: number | string | null | undefined,
  nowMs: number,
): number | undefined {
  if (until === null || until === undefined || until === "") return undefined;
  const ms = typeof until === "number" ? until : Date.parse(until);
  if (Number.isNaN(ms) || ms <= nowMs) return undefined;
  return Math.max(1, Math.ceil((ms - nowMs) / 1000));
}
