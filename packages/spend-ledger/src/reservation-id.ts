import { randomUUID } from "node:crypto";

/**
 * A new reservation id: a UUID version 7 (RFC 9562), the first 48 bits the creation time in
 * epoch milliseconds, the rest random (74 bits of it). Ids made later sort after ids made
 * earlier (to the millisecond), so the SQLite store's indexes on them grow at their right edge:
 * a batch of reservations and settles touches a few index pages, where random ids would each
 * land on a different page and make every batch rewrite dozens of pages.
 */
export function newReservationId(nowMs: number): string {
  // A v4 UUID is 122 random bits in the same layout; its first 48 bits become the time and its
  // version digit becomes 7. The variant bits (the first digit of the fourth group) already match.
  const random = randomUUID();
  const ms = Math.max(0, Math.floor(nowMs));
  if (ms !== prefixMs) {
    prefix = reservationIdFloor(ms);
    prefixMs = ms;
  }
  return prefix + random.slice(15);
}

/**
 * The lowest id {@link newReservationId} can make at `atMs` or later: every id it made earlier
 * sorts below it (compare with `<` on the strings).
 */
export function reservationIdFloor(atMs: number): string {
  const time = Math.max(0, Math.floor(atMs)).toString(16).padStart(12, "0").slice(-12);
  return `${time.slice(0, 8)}-${time.slice(8)}-7`;
}

// The time part of the last id: many ids are made in the same millisecond.
let prefixMs = -1;
let prefix = "";
