import { describe, expect, it } from "vitest";
import { formatBudget, formatUsd } from "./money";

describe("formatUsd", () => {
  it("shows cents from one cent up, with thousands separators", () => {
    expect(formatUsd(4.2)).toBe("$4.20");
    expect(formatUsd(1234.5)).toBe("$1,234.50");
    expect(formatUsd(0.01)).toBe("$0.01");
  });

  it("keeps micro-costs visible below a cent", () => {
    expect(formatUsd(0.000005)).toBe("$0.000005");
    expect(formatUsd(0.0042)).toBe("$0.0042");
    expect(formatUsd(0.00000001)).toBe("<$0.000001");
  });

  it("zero, negative and non-finite amounts", () => {
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(-1)).toBe("-$1.00");
    expect(formatUsd(Number.NaN)).toBe("n/a");
  });
});

describe("formatBudget", () => {
  it("shows spend against the limit", () => {
    expect(formatBudget(1.2, 5)).toBe("$1.20 / $5.00");
    expect(formatBudget(0, null)).toBe("$0.00 / no limit");
  });

  it("B2 a budget of 0 or less disables the rung", () => {
    expect(formatBudget(0, 0)).toBe("disabled");
  });
});
