import { describe, expect, it } from "vitest";
import { newReservationId, reservationIdFloor } from "./reservation-id";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newReservationId", () => {
  it("is a UUID version 7 whose first 48 bits are the time in milliseconds", () => {
    const nowMs = Date.UTC(2026, 11, 1, 12, 30, 15, 123);
    const id = newReservationId(nowMs);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(nowMs);
  });

  it("sorts ids of later milliseconds after earlier ones, and never repeats", () => {
    const start = Date.UTC(2026, 11, 1);
    const ids = Array.from({ length: 2000 }, (_, index) => newReservationId(start + index));
    expect([...ids].sort()).toEqual(ids);
    const sameMillisecond = Array.from({ length: 2000 }, () => newReservationId(start));
    expect(new Set(sameMillisecond).size).toBe(2000);
    for (const id of sameMillisecond) expect(id).toMatch(UUID_V7);
  });
});

describe("reservationIdFloor", () => {
  it("sorts above every id made earlier and at or below every id made since", () => {
    const atMs = Date.UTC(2026, 11, 1, 12, 30, 15, 123);
    const floor = reservationIdFloor(atMs);
    for (const offset of [-86_400_000, -1])
      expect(newReservationId(atMs + offset) < floor).toBe(true);
    for (const offset of [0, 1, 86_400_000])
      expect(newReservationId(atMs + offset) >= floor).toBe(true);
  });
});
