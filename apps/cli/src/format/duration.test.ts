import { describe, expect, it } from "vitest";
import { formatDuration, formatResetCountdown } from "./duration";

const now = Date.parse("2026-11-30T12:00:00Z");

describe("formatDuration", () => {
  it("shows the two largest units", () => {
    expect(formatDuration((2 * 3600 + 14 * 60 + 59) * 1000)).toBe("2h 14m");
    expect(formatDuration((3 * 86_400 + 4 * 3600 + 5) * 1000)).toBe("3d 4h");
    expect(formatDuration((5 * 60 + 10) * 1000)).toBe("5m 10s");
    expect(formatDuration(45_900)).toBe("45s");
  });

  it("treats negative durations as zero", () => {
    expect(formatDuration(-5000)).toBe("0s");
  });
});

describe("formatResetCountdown", () => {
  it("counts down to a future reset", () => {
    const resetAt = new Date(now + (2 * 3600 + 14 * 60) * 1000).toISOString();
    expect(formatResetCountdown(resetAt, now)).toBe("resets in 2h 14m");
  });

  it("S2 a reset at or before now is shown as passed", () => {
    expect(formatResetCountdown(new Date(now).toISOString(), now)).toBe("reset passed");
    expect(formatResetCountdown("2026-11-30T11:00:00Z", now)).toBe("reset passed");
  });

  it("no or unparseable reset is unknown", () => {
    expect(formatResetCountdown(null, now)).toBe("reset unknown");
    expect(formatResetCountdown("soon", now)).toBe("reset unknown");
  });
});
