import { describe, expect, it } from "vitest";
import { parseIetfRateLimit } from "./parse-ietf-rate-limit";

const now = Date.parse("2026-05-01T00:00:00.000Z");

describe("parseIetfRateLimit", () => {
  it("joins RateLimit items to RateLimit-Policy on the policy name", () => {
    const windows = parseIetfRateLimit(
      {
        "RateLimit-Policy": '"burst";q=100;w=60,"daily";q=1000;w=86400',
        RateLimit: '"burst";r=25;t=30, "daily";r=0;t=3600',
      },
      now,
    );
    expect(windows).toEqual([
      {
        windowId: "burst",
        remainingPercent: 25,
        resetAt: "2026-05-01T00:00:30.000Z",
        windowSeconds: 60,
        status: "ok",
        source: "header",
        observedAt: "2026-05-01T00:00:00.000Z",
      },
      {
        windowId: "daily",
        remainingPercent: 0,
        resetAt: "2026-05-01T01:00:00.000Z",
        windowSeconds: 86400,
        status: "exhausted",
        source: "header",
        observedAt: "2026-05-01T00:00:00.000Z",
      },
    ]);
  });

  it("reads byte-sequence partition keys and a quota unit without confusion", () => {
    const [window] = parseIetfRateLimit(
      {
        "ratelimit-policy": '"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:',
        ratelimit: '"peruser";r=6553;pk=:sdfjLJUOUH==:',
      },
      now,
    );
    expect(window?.remainingPercent).toBeCloseTo(10, 1);
    expect(window?.windowSeconds).toBe(10);
    expect(window?.resetAt).toBeNull();
  });

  it("knows no percent when the policy is missing, unless nothing remains", () => {
    const windows = parseIetfRateLimit({ ratelimit: '"default";r=50;t=30' }, now);
    expect(windows[0]?.remainingPercent).toBeNull();
    expect(windows[0]?.resetAt).toBe("2026-05-01T00:00:30.000Z");
  });

  it("falls back to the older RateLimit-Limit / -Remaining / -Reset trio", () => {
    const [window] = parseIetfRateLimit(
      { "RateLimit-Limit": "100", "RateLimit-Remaining": "40", "RateLimit-Reset": "12" },
      now,
    );
    expect(window).toMatchObject({
      windowId: "ratelimit",
      remainingPercent: 40,
      resetAt: "2026-05-01T00:00:12.000Z",
    });
  });

  it("gives no window for absent or garbage fields", () => {
    expect(parseIetfRateLimit({}, now)).toEqual([]);
    expect(parseIetfRateLimit({ ratelimit: "garbage", "ratelimit-limit": "x" }, now)).toEqual([]);
  });
});
