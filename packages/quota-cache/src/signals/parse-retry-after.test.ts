import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./parse-retry-after";

const now = Date.parse("2026-03-25T20:25:06.000Z");

describe("parseRetryAfter", () => {
  it("reads integer delay-seconds from the observation instant", () => {
    expect(parseRetryAfter({ "retry-after": "2094" }, now)).toBe("2026-03-25T21:00:00.000Z");
  });

  it("tolerates fractional seconds", () => {
    expect(parseRetryAfter({ "Retry-After": "0.2" }, now)).toBe("2026-03-25T20:25:06.200Z");
  });

  it("prefers retry-after-ms, then x-ms-retry-after-ms, over retry-after", () => {
    expect(parseRetryAfter({ "retry-after": "5", "retry-after-ms": "1500" }, now)).toBe(
      "2026-03-25T20:25:07.500Z",
    );
    expect(parseRetryAfter({ "retry-after": "5", "x-ms-retry-after-ms": "250" }, now)).toBe(
      "2026-03-25T20:25:06.250Z",
    );
  });

  it("reads all three HTTP-date forms", () => {
    const expected = "2026-10-21T07:28:00.000Z";
    expect(parseRetryAfter({ "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }, now)).toBe(expected);
    expect(parseRetryAfter({ "retry-after": "Wednesday, 21-Oct-26 07:28:00 GMT" }, now)).toBe(
      expected,
    );
    expect(parseRetryAfter({ "retry-after": "Wed Oct 21 07:28:00 2026" }, now)).toBe(expected);
  });

  it("clamps negative delays and past dates to the observation instant", () => {
    expect(parseRetryAfter({ "retry-after": "-30" }, now)).toBe(new Date(now).toISOString());
    expect(parseRetryAfter({ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }, now)).toBe(
      new Date(now).toISOString(),
    );
  });

  it("keeps week-long waits uncapped", () => {
    expect(parseRetryAfter({ "retry-after": "604800" }, now)).toBe("2026-04-01T20:25:06.000Z");
    expect(parseRetryAfter({ "retry-after": "121180" }, now)).toBe("2026-03-27T06:04:46.000Z");
  });

  it("accepts fetch Headers and Node's array values", () => {
    expect(parseRetryAfter(new Headers({ "Retry-After": "10" }), now)).toBe(
      "2026-03-25T20:25:16.000Z",
    );
    expect(parseRetryAfter({ "retry-after": ["10"] }, now)).toBe("2026-03-25T20:25:16.000Z");
  });

  it("gives null for absent, empty or unparseable values, never a guessed date", () => {
    expect(parseRetryAfter({}, now)).toBeNull();
    expect(parseRetryAfter({ "retry-after": "" }, now)).toBeNull();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeNull();
    expect(parseRetryAfter({ "retry-after": "foo 12" }, now)).toBeNull();
    expect(parseRetryAfter({ "retry-after": "Wed, 31 Feb 2026 07:28:00 GMT" }, now)).toBeNull();
  });
});
