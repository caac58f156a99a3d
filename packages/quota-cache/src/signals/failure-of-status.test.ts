import { describe, expect, it } from "vitest";
import { failureOfStatus } from "./failure-of-status";

describe("failureOfStatus", () => {
  it("names the failure of a bare status and invents no reset", () => {
    expect(failureOfStatus(401)?.kind).toBe("auth_invalid");
    expect(failureOfStatus(403)?.kind).toBe("auth_invalid");
    expect(failureOfStatus(402)?.kind).toBe("credits_exhausted");
    expect(failureOfStatus(429)).toEqual({
      kind: "rate_limited",
      retryAt: null,
      resetAt: null,
      code: "429",
    });
    expect(failureOfStatus(500)?.kind).toBe("overloaded");
    expect(failureOfStatus(503)?.kind).toBe("overloaded");
  });

  it("a success or redirect is no failure", () => {
    expect(failureOfStatus(200)).toBeUndefined();
    expect(failureOfStatus(304)).toBeUndefined();
  });
});
