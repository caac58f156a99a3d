import { describe, expect, it } from "vitest";
import { TierResolverError } from "./tier-resolver-error";

describe("TierResolverError", () => {
  it("keeps its code, fields and cause, and has a stable name", () => {
    const cause = new Error("underlying");
    const error = new TierResolverError({
      code: "invalid_option",
      message: "got 3",
      path: "overrides[0].tier",
      allowed: "free, cheap, premium",
      cause,
    });
    expect(error.name).toBe("TierResolverError");
    expect(error).toMatchObject({
      code: "invalid_option",
      message: "overrides[0].tier: got 3 (allowed: free, cheap, premium)",
      path: "overrides[0].tier",
      allowed: "free, cheap, premium",
    });
    expect(error.cause).toBe(cause);
  });

  it("is recognised by its registry marker, not by its class identity", () => {
    const error = new TierResolverError({
      code: "invalid_option",
      message: "got 3",
      path: "overrides[0].tier",
      allowed: "free, cheap, premium",
    });
    expect(TierResolverError.isInstance(error)).toBe(true);
    // A copy of the package loaded twice (ESM and CJS) has another class but the same marker.
    const fromOtherCopy = Object.assign(new Error("x"), {
      [Symbol.for("planfirst.error.TierResolverError")]: true,
    });
    expect(TierResolverError.isInstance(fromOtherCopy)).toBe(true);
    const lookalike = Object.assign(new Error("x"), {
      name: "TierResolverError",
      code: error.code,
    });
    expect(TierResolverError.isInstance(lookalike)).toBe(false);
    expect(TierResolverError.isInstance(null)).toBe(false);
  });
});
