import { describe, expect, it } from "vitest";
import { nextBudgetWindowMs } from "../src/dispatch/paid-refusals";
import { routerConnection } from "./fixtures";
import { chatBody, post, useTestBed } from "./harness";

const bed = useTestBed({ router: "openai" });

const config = (budget: number) => ({
  connections: [routerConnection(bed.fakes.router.url)],
  subscriptionLadder: { rungBudgetUsd: { cheap: budget } },
});

describe("a spent budget", () => {
  it.each(["qwen/qwen3-coder", "auto/thrifty"])(
    "answers %s with 429 budget_exhausted and Retry-After to the next budget window",
    async (model) => {
      // A budget smaller than any request's worst case: nothing can be admitted.
      const harness = await bed.start({
        config: config(0.000001),
        env: { ROUTER_KEY: "sk-or-v1-budget-test-key-0001" },
      });
      const response = await post(harness.url, "/v1/chat/completions", chatBody(model));
      const body = (await response.json()) as { error: { code: string; resets_at: string } };
      expect(response.status).toBe(429);
      expect(body.error.code).toBe("budget_exhausted");
      // The harness clock is 2026-11-30T10:00Z; the daily UTC window turns at midnight.
      expect(body.error.resets_at).toBe("2026-12-01T00:00:00.000Z");
      expect(response.headers.get("retry-after")).toBe(String(14 * 3600));
      expect(bed.fakes.router.completionHits()).toHaveLength(0);
    },
  );
});

describe("nextBudgetWindowMs", () => {
  it("finds the next local midnight, Monday and first of the month", () => {
    const at = Date.parse("2026-11-30T10:00:00Z"); // a Monday
    const day = { budgetWindow: "day" as const, budgetTimeZone: "Europe/Paris" };
    expect(new Date(nextBudgetWindowMs(day, at)).toISOString()).toBe("2026-11-30T23:00:00.000Z");
    const week = { budgetWindow: "week" as const, budgetTimeZone: "UTC" };
    expect(new Date(nextBudgetWindowMs(week, at)).toISOString()).toBe("2026-12-07T00:00:00.000Z");
    const month = { budgetWindow: "month" as const, budgetTimeZone: "America/New_York" };
    expect(new Date(nextBudgetWindowMs(month, at)).toISOString()).toBe("2026-12-01T05:00:00.000Z");
  });
});
