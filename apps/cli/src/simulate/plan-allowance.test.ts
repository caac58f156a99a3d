import { describe, expect, it } from "vitest";
import { parsePlanAllowances, windowEndMs } from "./plan-allowance";

describe("parsePlanAllowances", () => {
  it("reads dollar and token allowances per window", () => {
    const parsed = parsePlanAllowances(
      "claude-max=200usd/5h, claude-max=1200usd/7d,codex=30mtok/5h,copilot=300ktok/month",
    );
    expect(parsed).toEqual({
      ok: true,
      allowances: [
        {
          target: "claude-max",
          windowId: "5h",
          length: { kind: "rolling", lengthMs: 5 * 3_600_000 },
          amount: 200,
          unit: "usd",
          origin: "option",
        },
        {
          target: "claude-max",
          windowId: "7d",
          length: { kind: "rolling", lengthMs: 7 * 86_400_000 },
          amount: 1200,
          unit: "usd",
          origin: "option",
        },
        {
          target: "codex",
          windowId: "5h",
          length: { kind: "rolling", lengthMs: 5 * 3_600_000 },
          amount: 30_000_000,
          unit: "tokens",
          origin: "option",
        },
        {
          target: "copilot",
          windowId: "monthly",
          length: { kind: "month" },
          amount: 300_000,
          unit: "tokens",
          origin: "option",
        },
      ],
    });
  });

  it("names every bad item and the accepted form", () => {
    const parsed = parsePlanAllowances("claude-max=200/5h,codex=0usd/5h,x=5usd/0h");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toHaveLength(3);
    expect(parsed.problems[0]).toContain('"claude-max=200/5h"');
    expect(parsed.problems[0]).toContain("claude-max=200usd/5h");
    expect(parsed.problems[1]).toContain("above 0");
  });

  it("ends a monthly window at the next UTC calendar month", () => {
    expect(windowEndMs({ kind: "month" }, Date.parse("2026-12-15T10:00:00Z"))).toBe(
      Date.parse("2027-01-01T00:00:00Z"),
    );
    expect(windowEndMs({ kind: "rolling", lengthMs: 1000 }, 5000)).toBe(6000);
  });
});
