import { claudeRateLimited, claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { RequestRecord } from "../src/observability/request-log/request-record";
import type { GatewayStatus } from "../src/status/gateway-status";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig } from "./fixtures";
import { chatBody, createClock, messagesBody, post, useTestBed } from "./harness";
import { INTERN_KEY, TEAM_ENV, TEAM_KEY, TEAM_SERVER } from "./request-log-helpers";

const bed = useTestBed(STANDARD_FAKES);
const hour = 3_600_000;
const DAY_START = Date.parse("2026-12-01T00:00:00Z");

/** Sums `costUsd` by `field`, in micro-dollars (the ledger's unit) to keep the sums exact. */
function spendBy(records: readonly RequestRecord[], field: "rung" | "keyId") {
  const micro: Record<string, number> = {};
  for (const record of records) {
    const name = record[field] ?? "none";
    micro[name] = (micro[name] ?? 0) + Math.round(record.costUsd * 1e6);
  }
  return Object.fromEntries(Object.entries(micro).map(([name, value]) => [name, value / 1e6]));
}

describe("a day of mixed traffic, read back from the request log", () => {
  it("answers where the day's spend went and why a request landed on the premium rung", async () => {
    const clock = createClock(DAY_START + hour);
    const harness = await bed.start({
      config: standardConfig(bed.fakes, {
        server: TEAM_SERVER,
        // One cheap request's worst case (1 000 output tokens) fits; a second one does not.
        subscriptionLadder: { rungBudgetUsd: { cheap: 0.001, premium: 1 } },
      }),
      env: TEAM_ENV,
      clock,
    });
    const at = (hours: number) => clock.set(DAY_START + hours * hour);
    const send = async (
      path: string,
      body: Record<string, unknown>,
      headers: Record<string, string>,
    ) => {
      const response = await post(harness.url, path, body, headers);
      await response.text();
      return response;
    };
    bed.fakes.plan.usage(claudeUsagePayload(20, DAY_START + 5 * hour), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.2, resetAtSec: Math.floor((clock.now() + 2 * hour) / 1000) },
        sevenDay: { utilization: 0.1, resetAtSec: Math.floor((clock.now() + 90 * hour) / 1000) },
      }),
    }));
    bed.fakes.router.script(() => ({ usage: { inputTokens: 1000, outputTokens: 500 } }));
    bed.fakes.pricey.script(() => ({ usage: { inputTokens: 2000, outputTokens: 300 } }));

    // Morning: the plan serves the team; the intern's cheap model spends the cheap budget.
    at(1);
    expect((await send("/v1/messages", messagesBody("auto/thrifty"), TEAM_KEY)).status).toBe(200);
    at(2);
    expect((await send("/v1/chat/completions", chatBody("auto/thrifty"), TEAM_KEY)).status).toBe(
      200,
    );
    at(3);
    const big = { max_tokens: 1000 };
    const cheap = await send("/v1/chat/completions", chatBody("qwen/qwen3-coder", big), INTERN_KEY);
    expect(cheap.headers.get("x-planfirst-rung")).toBe("cheap");
    // Noon: the plan's window runs out; the cheap budget is spent, so the team lands on premium.
    at(12);
    bed.fakes.plan.script([
      claudeRateLimited({
        resetAtSec: Math.floor((clock.now() + 5 * hour) / 1000),
        retryAfterSec: 5 * 3600,
      }),
    ]);
    const premium = await send("/v1/chat/completions", chatBody("auto/thrifty", big), TEAM_KEY);
    expect(premium.headers.get("x-planfirst-rung")).toBe("premium");
    // Afternoon: refusals.
    at(13);
    expect((await send("/v1/messages", messagesBody("auto/subscription"), TEAM_KEY)).status).toBe(
      429,
    );
    at(14);
    expect(
      (await send("/v1/chat/completions", chatBody("qwen/qwen3-coder", big), INTERN_KEY)).status,
    ).toBe(429);
    const status = (await (
      await fetch(`${harness.url}/v1/status`, { headers: TEAM_KEY })
    ).json()) as GatewayStatus;
    // The next day's first request is not part of today.
    at(24.5);
    expect(
      (await send("/v1/chat/completions", chatBody("qwen/qwen3-coder"), INTERN_KEY)).status,
    ).toBe(200);

    const response = await fetch(
      `${harness.url}/v1/requests?${new URLSearchParams({
        format: "jsonl",
        since: new Date(DAY_START).toISOString(),
        until: new Date(DAY_START + 24 * hour).toISOString(),
      })}`,
      { headers: TEAM_KEY },
    );
    const today = (await response.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as RequestRecord);
    expect(today).toHaveLength(6);
    expect(today.map((r) => [r.keyId, r.rung, r.status])).toEqual([
      ["intern", null, 429],
      ["team", null, 429],
      ["team", "premium", 200],
      ["intern", "cheap", 200],
      ["team", "subscription", 200],
      ["team", "subscription", 200],
    ]);

    // Where did today's spend go: by rung and by key, to the micro-dollar of the receipts.
    const cheapUsd = Number(cheap.headers.get("x-planfirst-cost-usd"));
    const premiumUsd = Number(premium.headers.get("x-planfirst-cost-usd"));
    expect(cheapUsd).toBe(0.0006);
    expect(premiumUsd).toBeGreaterThan(0);
    expect(spendBy(today, "rung")).toEqual({
      none: 0,
      premium: premiumUsd,
      cheap: cheapUsd,
      subscription: 0,
    });
    expect(spendBy(today, "keyId")).toEqual({ intern: cheapUsd, team: premiumUsd });
    // The same totals the ledger's budgets show for the day.
    const spent = (rung: string) => status.budgets.find((b) => b.rung === rung)!.spentUsd;
    expect(spent("cheap")).toBe(cheapUsd);
    expect(spent("premium")).toBe(premiumUsd);

    // Why did that request land on premium: its attempts say, in order.
    const landed = today.find((r) => r.rung === "premium")!;
    expect(landed.attempts.map((a) => [a.connection, a.rung, a.outcome, a.status])).toEqual([
      ["claude-plan", "subscription", expect.any(String), 429],
      ["openrouter", "cheap", "budget_refused", null],
      ["openrouter-premium", "premium", "ok", 200],
    ]);
    expect(landed.attempts[0]!.outcome).not.toBe("ok");
  });
});
