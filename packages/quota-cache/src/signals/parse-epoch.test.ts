import { describe, expect, it } from "vitest";
import { parseEpoch } from "./parse-epoch";

describe("parseEpoch", () => {
  it("reads values below 1e12 as epoch seconds", () => {
    expect(parseEpoch(1774472400)).toBe(1_774_472_400_000);
    expect(parseEpoch("1774472400")).toBe(1_774_472_400_000);
    expect(parseEpoch("1774472400.6")).toBe(1_774_472_400_600);
  });

  it("reads values at or above 1e12 as epoch milliseconds", () => {
    expect(parseEpoch("1788220800000")).toBe(1_788_220_800_000);
    expect(new Date(parseEpoch(1788220800000)!).toISOString()).toBe("2026-09-01T00:00:00.000Z");
  });

  it("treats 0, negatives and empty values as no reset", () => {
    for (const value of [0, "0", -1, "-1", "", "  ", null, undefined, "abc", Number.NaN]) {
      expect(parseEpoch(value)).toBeNull();
    }
  });

  it("rejects hex and exponent forms and instants beyond the Date range", () => {
    expect(parseEpoch("0x10")).toBeNull();
    expect(parseEpoch("1e12")).toBeNull();
    expect(parseEpoch(9e15)).toBeNull();
  });
});
