import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { formatQuotaBar } from "./quota-bar";
import { stripAnsi } from "./text-width";

const now = Date.parse("2026-11-30T12:00:00Z");
const inTwoHours = new Date(now + (2 * 3600 + 14 * 60) * 1000).toISOString();

describe("formatQuotaBar", () => {
  it("draws the remaining share, the percent and the reset countdown", () => {
    expect(formatQuotaBar({ remainingPercent: 62, resetAt: inTwoHours }, { nowMs: now })).toBe(
      "[██████░░░░]  62% resets in 2h 14m",
    );
  });

  it("clamps out-of-range readings when drawing", () => {
    expect(formatQuotaBar({ remainingPercent: 140 }, { nowMs: now })).toBe(
      "[██████████] 100% reset unknown",
    );
    expect(formatQuotaBar({ remainingPercent: -3 }, { nowMs: now, width: 4 })).toBe(
      "[░░░░]   0% reset unknown",
    );
  });

  it("an unknown reading is shown as unknown, never as full or empty", () => {
    expect(formatQuotaBar({ remainingPercent: null, resetAt: null }, { nowMs: now })).toBe(
      "[??????????]   ?% reset unknown",
    );
  });

  it("colour, when given, changes nothing but the escape codes", () => {
    const colors = pc.createColors(true);
    const coloured = formatQuotaBar(
      { remainingPercent: 3, resetAt: inTwoHours },
      { nowMs: now, color: colors },
    );
    expect(coloured).toContain("\u001b[31m");
    expect(stripAnsi(coloured)).toBe("[░░░░░░░░░░]   3% resets in 2h 14m");
  });
});
