import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./parse-go-duration";

describe("parseGoDuration", () => {
  it.each([
    ["1h2m3s", 3_723_000],
    ["6m0s", 360_000],
    ["2m59.56s", 179_560],
    ["1m30.5s", 90_500],
    ["1.5s", 1_500],
    ["12ms", 12],
    ["500ms", 500],
    ["976.066617ms", 976.066617],
    ["0.976066617s", 976.066617],
    ["47s", 47_000],
    ["7.66s", 7_660],
    ["1500us", 1.5],
    ["0", 0],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 6);
  });

  it("reads a bare number as seconds (Cerebras float seconds)", () => {
    expect(parseGoDuration("33011.382867")).toBeCloseTo(33_011_382.867, 3);
    expect(parseGoDuration("40")).toBe(40_000);
  });

  it("is anchored: trailing or leading junk gives null, never a partial duration", () => {
    expect(parseGoDuration("1m30.5sx")).toBeNull();
    expect(parseGoDuration("about 1m")).toBeNull();
    expect(parseGoDuration("1m 30s")).toBeNull();
    expect(parseGoDuration("5")).toBe(5000);
    expect(parseGoDuration("5x")).toBeNull();
  });

  it("gives null for empty and non-duration input", () => {
    for (const value of ["", "   ", "s", "ms", "-", "abc", "1e3s", "NaN", "Infinity"]) {
      expect(parseGoDuration(value)).toBeNull();
    }
    expect(parseGoDuration(undefined)).toBeNull();
  });

  it("clamps a negative duration to 0 (already due)", () => {
    expect(parseGoDuration("-5s")).toBe(0);
  });

  it("gives null rather than Infinity for absurdly long digit strings", () => {
    expect(parseGoDuration(`${"9".repeat(400)}h`)).toBeNull();
  });
});
