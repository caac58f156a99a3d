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

/** The card of connection `id` on the status page. */
function cardOf(html: string, id: string): string {
  const start = html.indexOf(`<article class="card" data-connection="${id}"`);
  expect(start, `card ${id}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf("</article>", start));
}

/** The section of rung `rung` on the status page, up to its cards. */
function rungOf(html: string, rung: string): string {
  const start = html.indexOf(`data-rung="${rung}"`);
  expect(start, `rung ${rung}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('<div class="cards">', start));
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
        ofKey: null,
      },
      {
        rung: "premium",
        window: "day",
        windowKey: "day:2026-11-30",
        spentUsd: 0,
        reservedUsd: 0,
        budgetUsd: null,
        ofKey: null,
      },
    ]);
    expect(status.keyBudgets).toEqual([]);
    expect(status.requestsLastHour).toEqual({ cheap: 1 });

    const html = await statusPage();
    const planCard = cardOf(html, "claude-plan");
    expect(rungOf(html, "subscription")).not.toContain("no connection");
    expect(html.indexOf('data-connection="claude-plan"')).toBeGreaterThan(
      html.indexOf('data-rung="subscription"'),
    );
    expect(planCard).toContain('aria-valuenow="80"');
    expect(planCard).toContain('<span style="width:80.0%"></span>');
    expect(planCard).toContain("resets in 1 h 59 min");
    expect(planCard).toContain('<span class="ok">ready</span>');
    expect(cardOf(html, "openrouter")).toContain("no quota reading yet");
    expect(rungOf(html, "cheap")).toContain("spent $0.0006 of $5.00 this day");
    expect(rungOf(html, "cheap")).toContain("reserved $0.0000 apart");
    expect(rungOf(html, "premium")).toContain("no budget set");
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
    const planCard = cardOf(html, "claude-plan");
    expect(planCard).toContain('aria-valuenow="0"');
    expect(planCard).toContain('<span style="width:0.0%"></span>');
    expect(planCard).toContain("resets in 1 h 30 min");
    expect(planCard).toContain("cooling down until");

    clock.advance(150_000);
    expect(cardOf(await statusPage(), "claude-plan")).toContain("resets in 1 h 27 min");
  });
});
