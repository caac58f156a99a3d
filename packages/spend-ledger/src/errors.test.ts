import { describe, expect, it } from "vitest";
import { SpendLedgerError } from "./errors";

describe("SpendLedgerError", () => {
  it("keeps its code, fields and cause, and has a stable name", () => {
    const cause = new Error("underlying");
    const error = new SpendLedgerError({
      code: "invalid_argument",
      message: "bad",
      path: "budgetsUsd.cheap",
      allowed: "a number",
      cause,
    });
    expect(error.name).toBe("SpendLedgerError");
    expect(error).toMatchObject({
      code: "invalid_argument",
      message: "bad",
      path: "budgetsUsd.cheap",
      allowed: "a number",
    });
    expect(error.cause).toBe(cause);
  });

  it("is recognised by its registry marker, not by its class identity", () => {
    const error = new SpendLedgerError({
      code: "invalid_argument",
      message: "bad",
      path: "budgetsUsd.cheap",
      allowed: "a number",
    });
    expect(SpendLedgerError.isInstance(error)).toBe(true);
    // A copy of the package loaded twice (ESM and CJS) has another class but the same marker.
    const fromOtherCopy = Object.assign(new Error("x"), {
      [Symbol.for("planfirst.error.SpendLedgerError")]: true,
    });
    expect(SpendLedgerError.isInstance(fromOtherCopy)).toBe(true);
    const lookalike = Object.assign(new Error("x"), { name: "SpendLedgerError", code: error.code });
    expect(SpendLedgerError.isInstance(lookalike)).toBe(false);
    expect(SpendLedgerError.isInstance(null)).toBe(false);
  });
});
