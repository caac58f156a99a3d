import { describe, expect, it } from "vitest";
import { CliError } from "./errors";

describe("CliError", () => {
  it("keeps its code, fields and cause, and has a stable name", () => {
    const cause = new Error("underlying");
    const error = new CliError({
      code: "gateway_unreachable",
      message: "down",
      details: ["one"],
      cause,
    });
    expect(error.name).toBe("CliError");
    expect(error).toMatchObject({
      code: "gateway_unreachable",
      message: "down",
      exitCode: 3,
      details: ["one"],
    });
    expect(error.cause).toBe(cause);
  });

  it("is recognised by its registry marker, not by its class identity", () => {
    const error = new CliError({ code: "gateway_unreachable", message: "down", details: ["one"] });
    expect(CliError.isInstance(error)).toBe(true);
    // A copy of the package loaded twice (ESM and CJS) has another class but the same marker.
    const fromOtherCopy = Object.assign(new Error("x"), {
      [Symbol.for("planfirst.error.CliError")]: true,
    });
    expect(CliError.isInstance(fromOtherCopy)).toBe(true);
    const lookalike = Object.assign(new Error("x"), { name: "CliError", code: error.code });
    expect(CliError.isInstance(lookalike)).toBe(false);
    expect(CliError.isInstance(null)).toBe(false);
  });
});
