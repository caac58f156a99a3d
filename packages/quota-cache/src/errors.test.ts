import { describe, expect, it } from "vitest";
import { QuotaCacheError } from "./errors";

describe("QuotaCacheError", () => {
  it("keeps its code, fields and cause, and has a stable name", () => {
    const cause = new Error("underlying");
    const error = new QuotaCacheError({
      code: "invalid_option",
      message: "bad",
      path: "baseMs",
      allowed: "0..10",
      received: -1,
      cause,
    });
    expect(error.name).toBe("QuotaCacheError");
    expect(error).toMatchObject({
      code: "invalid_option",
      message: "bad",
      path: "baseMs",
      allowed: "0..10",
      received: -1,
    });
    expect(error.cause).toBe(cause);
  });

  it("is recognised by its registry marker, not by its class identity", () => {
    const error = new QuotaCacheError({
      code: "invalid_option",
      message: "bad",
      path: "baseMs",
      allowed: "0..10",
      received: -1,
    });
    expect(QuotaCacheError.isInstance(error)).toBe(true);
    // A copy of the package loaded twice (ESM and CJS) has another class but the same marker.
    const fromOtherCopy = Object.assign(new Error("x"), {
      [Symbol.for("planfirst.error.QuotaCacheError")]: true,
    });
    expect(QuotaCacheError.isInstance(fromOtherCopy)).toBe(true);
    const lookalike = Object.assign(new Error("x"), { name: "QuotaCacheError", code: error.code });
    expect(QuotaCacheError.isInstance(lookalike)).toBe(false);
    expect(QuotaCacheError.isInstance(null)).toBe(false);
  });
});
