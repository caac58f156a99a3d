import { claudeRateLimited } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, getJson, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);

const hour = 3_600_000;
const day = 24 * hour;

async function statusPage(): Promise<string> {
  const response = await fetch(`${bed.harness.url}/`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  return response.text();
}

/** The table row of the status page whose first cell is `first`. */
function rowOf(html: string, first: string): string {
  const row = html.split("\n").find((line) => line.startsWith(`<tr><td>${first}</td>`));
  expect(row, `row ${first}`).toBeDefined();
  return row!;
}

function connectionOf(status: GatewayStatus, id: string) {
  return status.connections.find((connection) => connection.id === id)!;
}

describe("GET /v1/status and the GET / status page", () => {
  it("show a plan's quota windows with their resets and a paid rung's spend against its budget", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const clock = harness.clock;
    const fiveHourReset = clock.now() + 2 * hour;
    bed.fakes.plan.usage(claudeUsagePayload(20, fiveHourReset), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    bed.fakes.router.script([{ usage: { inputTokens: 1000, outputTokens: 500 } }]);
    const paid = await post(harness.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
    expect(paid.headers.get("x-planfirst-cost-usd")).toBe("0.0006");
    clock.advance(60_000);

    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const plan = connectionOf(status, "claude-plan");
    expect(plan).toMatchObject({
      billing: "subscription",
      overage: "hard-stop",
      rungs: ["subscription"],
      enabled: true,
      cooldownUntil: null,
    });
    expect(plan.quota).toMatchObject({
      status: "available",
      remainingPercent: 80,
      resetAt: new Date(fiveHourReset).toISOString(),
    });
    const windows = Object.fromEntries(plan.quota!.windows.map((w) => [w.windowId, w]));
    expect(windows["5h"]).toMatchObject({
      remainingPercent: 80,
      resetAt: new Date(fiveHourReset).toISOString(),
    });
    expect(windows["7d"]).toMatchObject({
      remainingPercent: 90,
      resetAt: new Date(fiveHourReset + 5 * day).toISOString(),
    });
    expect(status.budgets).toEqual([
      {
        rung: "cheap",
        window: "day",
        windowKey: "day:2026-11-30",
        spentUsd: 0.0006,
        reservedUsd: 0,
        budgetUsd: 5,
      },
      {
        rung: "premium",
        window: "day",
        windowKey: "day:2026-11-30",
        spentUsd: 0,
        reservedUsd: 0,
        budgetUsd: null,
      },
    ]);
    expect(status.requestsLastHour).toEqual({ cheap: 1 });

    const html = await statusPage();
    const planRow = rowOf(html, "claude-plan");
    expect(planRow).toContain("<td>subscription</td>");
    expect(planRow).toContain('<div style="width:80%"></div></div> 80%');
    expect(planRow).toContain("<td>1 h 59 min</td>");
    expect(planRow).toContain("<td>ready</td>");
    expect(rowOf(html, "openrouter")).toContain("no reading yet");
    expect(rowOf(html, "cheap")).toContain("<td>$0.000600</td><td>$0.000000</td><td>$5.00</td>");
    expect(rowOf(html, "premium")).toContain("<td>unbudgeted</td>");
  });

  it("show an exhausted plan at 0 % with its reset and cooldown, and the countdown follows the clock", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const clock = harness.clock;
    const resetAtMs = clock.now() + 90 * 60_000;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 5400 }),
    ]);
    await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));

    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const plan = connectionOf(status, "claude-plan");
    expect(plan.quota).toMatchObject({
      status: "exhausted",
      remainingPercent: 0,
      resetAt: new Date(resetAtMs).toISOString(),
    });
    expect(plan.quota!.windows.find((w) => w.windowId === "5h")).toMatchObject({
      remainingPercent: 0,
      resetAt: new Date(resetAtMs).toISOString(),
    });
    // S4: the cooldown never outlasts the plan's own reset.
    expect(plan.cooldownUntil).not.toBeNull();
    expect(Date.parse(plan.cooldownUntil!)).toBeLessThanOrEqual(resetAtMs);
    expect(status.requestsLastHour).toEqual({ cheap: 1 });

    const html = await statusPage();
    const planRow = rowOf(html, "claude-plan");
    expect(planRow).toContain('<div style="width:0%"></div></div> 0%');
    expect(planRow).toContain("<td>1 h 30 min</td>");
    expect(planRow).toContain("cooling until");

    clock.advance(150_000);
    expect(rowOf(await statusPage(), "claude-plan")).toContain("<td>1 h 28 min</td>");
  });
});
