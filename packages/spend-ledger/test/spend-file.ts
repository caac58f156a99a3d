import type Database from "better-sqlite3";

/** A reservation id a spend file knows, and what became of it. */
export type FileReservationState = "live" | "settled" | "released" | "expired";

/**
 * Every reservation id the committed file knows, with its state: live (in `spend_live`),
 * settled (its record in `spend_record`), released or expired (in `spend_finished`).
 */
export function fileReservations(db: Database.Database): Map<string, FileReservationState> {
  const states = new Map<string, FileReservationState>();
  const ids = (sql: string) => (db.prepare(sql).all() as { id: string; state: string }[]).values();
  for (const row of ids("SELECT id, state FROM spend_finished")) {
    states.set(row.id, row.state as FileReservationState);
  }
  for (const row of ids("SELECT reservation_id AS id, 'settled' AS state FROM spend_record")) {
    states.set(row.id, "settled");
  }
  for (const row of ids("SELECT id, 'live' AS state FROM spend_live")) states.set(row.id, "live");
  return states;
}
