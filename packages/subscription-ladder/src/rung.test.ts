import { describe, expect, it } from "vitest";
import { isPaidRung, PAID_RUNGS, QUOTA_RUNGS, RUNG_ORDER, rungIndex } from "./rung";

describe("rungs", () => {
  it("RUNG_ORDER escalates from plan capacity to premium, and rungIndex is its position", () => {
    expect(RUNG_ORDER).toEqual(["subscription", "keyless", "free", "cheap", "premium"]);
    expect(RUNG_ORDER.map(rungIndex)).toEqual([0, 1, 2, 3, 4]);
    expect([...QUOTA_RUNGS, ...PAID_RUNGS]).toEqual([...RUNG_ORDER]);
    expect(RUNG_ORDER.filter(isPaidRung)).toEqual(["cheap", "premium"]);
  });
});
