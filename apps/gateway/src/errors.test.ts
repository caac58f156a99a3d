import { describe, expect, it } from "vitest";
import { ERROR_HTTP, httpOfCode } from "./app/on-error";
import { ConfigError, GatewayError } from "./errors";
import { ProtocolError } from "./protocols/protocol-error";
import { UpstreamError } from "./upstream/upstream-error";

describe("gateway errors", () => {
  it("carry a code and fields but no HTTP status", () => {
    const error = new GatewayError({
      code: "plan_quota_exhausted",
      message: "no plan",
      retryAfterSec: 30,
      details: { reasons: [] },
    });
    expect(error).toMatchObject({ code: "plan_quota_exhausted", retryAfterSec: 30 });
    expect("status" in error).toBe(false);
    expect(httpOfCode(error.code)).toEqual({ status: 429, type: "rate_limit_error" });
  });

  it("a ProtocolError keeps field and allowed, in its fields and in the body details", () => {
    const error = new ProtocolError({
      code: "invalid_field",
      field: "tool_choice.type",
      message: "is not known",
      allowed: ["auto", "any", "tool"],
    });
    expect(error.message).toBe("tool_choice.type: is not known (allowed: auto, any, tool)");
    expect(error.field).toBe("tool_choice.type");
    expect(error.allowed).toEqual(["auto", "any", "tool"]);
    expect(error.details).toEqual({ param: "tool_choice.type", allowed: ["auto", "any", "tool"] });
    expect(GatewayError.isInstance(error)).toBe(true);
    expect(ProtocolError.isInstance(error)).toBe(true);
    expect(UpstreamError.isInstance(error)).toBe(false);
  });

  it("an UpstreamError maps timeout to 504 and the rest to 502", () => {
    const timeout = new UpstreamError({ code: "timeout", origin: "http://x", message: "slow" });
    const network = new UpstreamError({ code: "network", origin: "http://x", message: "down" });
    expect(httpOfCode(timeout.code).status).toBe(504);
    expect(httpOfCode(network.code).status).toBe(502);
    expect(timeout.details).toEqual({ origin: "http://x" });
  });

  it("a ConfigError lists its problems and is recognised by its marker", () => {
    const error = new ConfigError({
      code: "invalid_config",
      message: "invalid configuration",
      problems: [{ path: "server.port", message: "must be a number" }],
    });
    expect(error.message).toBe("invalid configuration\n  - server.port: must be a number");
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(new GatewayError({ code: "invalid_config", message: "x" }))).toBe(
      false,
    );
    const fromOtherCopy = Object.assign(new Error("x"), {
      [Symbol.for("planfirst.error.GatewayError")]: true,
    });
    expect(GatewayError.isInstance(fromOtherCopy)).toBe(true);
  });

  it("every status in the table is an error status", () => {
    for (const { status } of Object.values(ERROR_HTTP)) {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });
});
