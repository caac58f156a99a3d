import { describe, expect, it } from "vitest";
import { costOf } from "./cost";
import { formatUsd } from "./money";

const sonnet = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cachedInputPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
};
const mini = { inputPerMTok: 0.15, outputPerMTok: 0.6 };

describe("costOf", () => {
  it("prices input, output, cached reads and cache writes from the catalog price", () => {
    // 10 000 input of which 4 000 cached and 1 000 written: 5 000×3 + 4 000×0.3 + 1 000×3.75 + 2 000×15
    const micro = costOf(
      {
        inputTokens: 10_000,
        outputTokens: 2_000,
        cachedInputTokens: 4_000,
        cacheWriteTokens: 1_000,
      },
      sonnet,
    );
    expect(micro).toBe(15_000 + 1_200 + 3_750 + 30_000);
  });

  it("prices cached and cache-write tokens at the input price when the catalog has no such price", () => {
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 500_000 }, mini),
    ).toBe(150_000);
  });

  it("rounds each request up to the micro-dollar, never down", () => {
    // one input token of a $0.15/MTok model costs 0.15 micro-USD → 1
    expect(costOf({ inputTokens: 1, outputTokens: 0 }, mini)).toBe(1);
    expect(costOf({ inputTokens: 0, outputTokens: 0 }, mini)).toBe(0);
    expect(costOf({ inputTokens: 7, outputTokens: 0 }, mini)).toBe(2);
  });

  it("a million small requests sum exactly, with no floating drift", () => {
    let totalMicro = 0;
    let floatUsd = 0;
    for (let i = 0; i < 1_000_000; i++) {
      // 100 input + 10 output tokens at $3/$15: exactly 450 micro-USD each
      const micro = costOf({ inputTokens: 100, outputTokens: 10 }, sonnet);
      totalMicro += micro;
      floatUsd += (100 * 3 + 10 * 15) / 1e6;
    }
    expect(totalMicro).toBe(450_000_000);
    expect(formatUsd(totalMicro)).toBe("450");
    // The naive float sum drifts away from $450; the ledger's integer sum does not.
    expect(floatUsd).not.toBe(450);
  });

  it("stays exact for requests too large for double products", () => {
    const micro = costOf(
      { inputTokens: 9_000_000_000, outputTokens: 0 },
      { inputPerMTok: 1_000.000001, outputPerMTok: 0 },
    );
    // 9e9 tokens × 1 000 000 001 micro/MTok / 1e6 = 9 000 000 009 000 micro exactly
    expect(micro).toBe(9_000_000_009_000);
  });

  it("rejects token counts that are negative, fractional or inconsistent, naming the field", () => {
    expect(() => costOf({ inputTokens: -1, outputTokens: 0 }, mini)).toThrow(
      expect.objectContaining({ code: "invalid_argument", path: "usage.inputTokens" }),
    );
    expect(() => costOf({ inputTokens: 1, outputTokens: 0.5 }, mini)).toThrow(
      expect.objectContaining({ path: "usage.outputTokens" }),
    );
    expect(() => costOf({ inputTokens: 10, outputTokens: 0, cachedInputTokens: 11 }, mini)).toThrow(
      expect.objectContaining({ path: "usage.cachedInputTokens" }),
    );
  });
});
