import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatUsd, microToUsd, usdToMicro } from "./money";

describe("usdToMicro", () => {
  it("reads amounts as the decimals they are written as", () => {
    expect(usdToMicro(0.1)).toBe(100_000);
    expect(usdToMicro(0.3)).toBe(300_000);
    expect(usdToMicro(1.15)).toBe(1_150_000);
    expect(usdToMicro(0.000001)).toBe(1);
    expect(usdToMicro(0)).toBe(0);
    expect(usdToMicro(123456.789012)).toBe(123_456_789_012);
  });

  it("rounds a fraction of a micro-dollar up for costs and down for budgets", () => {
    expect(usdToMicro(0.0000001)).toBe(1);
    expect(usdToMicro(0.0000001, "down")).toBe(0);
    expect(usdToMicro(1.2345671)).toBe(1_234_568);
    expect(usdToMicro(1.2345671, "down")).toBe(1_234_567);
    expect(usdToMicro(1e-20)).toBe(1);
  });

  it("rejects negative, non-finite and oversized amounts with the allowed range", () => {
    for (const bad of [-0.01, Number.NaN, Number.POSITIVE_INFINITY, 1e12]) {
      expect(() => usdToMicro(bad)).toThrow(
        expect.objectContaining({
          name: "SpendLedgerError",
          code: "invalid_argument",
          path: "usd",
        }),
      );
    }
  });

  it("round-trips every micro amount through microToUsd", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), (micro) => {
        expect(usdToMicro(microToUsd(micro))).toBe(micro);
        expect(usdToMicro(microToUsd(micro), "down")).toBe(micro);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("formatUsd", () => {
  it("prints micro-dollar precision without float noise or trailing zeros", () => {
    expect(formatUsd(5)).toBe("0.000005");
    expect(formatUsd(0)).toBe("0");
    expect(formatUsd(1_500_000)).toBe("1.5");
    expect(formatUsd(300_000)).toBe("0.3");
    expect(formatUsd(12_000_000)).toBe("12");
    expect(formatUsd(-20)).toBe("-0.00002");
    expect(formatUsd(9_007_199_254_740_991)).toBe("9007199254.740991");
  });

  it("parses back to the same amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (micro) => {
        const [whole = "", fraction = ""] = formatUsd(micro).split(".");
        expect(BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"))).toBe(BigInt(micro));
      }),
    );
  });

  it("rejects a fractional amount", () => {
    expect(() => formatUsd(0.5)).toThrow(expect.objectContaining({ code: "invalid_argument" }));
  });
});
