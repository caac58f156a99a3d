import { claudeRateLimited, claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import { afterAll, describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import {
  chatBody,
  createClock,
  deleteRedisKeys,
  getJson,
  ledgerOf,
  messagesBody,
  post,
  redisStorage,
  useTestBed,
  waitFor,
} from "./harness";

const bed = useTestBed(STANDARD_FAKES);
const prefixes: string[] = [];

afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => deleteRedisKeys(prefix)));
});

const hour = 3_600_000;

/** Two gateways ("replicas") over one Redis key prefix, on one injected clock. */
async function twoReplicas(
  overrides: Parameters<typeof standardConfig>[1] = {},
  env: Record<string, string> = TEST_ENV,
) {
  const storage = redisStorage();
  prefixes.push(storage.keyPrefix);
  const clock = createClock();
  const config = standardConfig(bed.fakes, overrides);
  const a = await bed.start({ config, env, clock, storage });
  const b = await bed.start({ config, env, clock, storage });
  return { a, b, clock };
}

function connectionOf(status: GatewayStatus, id: string) {
  return status.connections.find((connection) => connection.id === id)!;
}

describe("storage.driver redis (real Redis, random key prefix per gateway pair)", () => {
  it("a gateway on Redis serves requests and keeps quota readings and spend in Redis", async () => {
    const storage = redisStorage();
    prefixes.push(storage.keyPrefix);
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV, storage });
    const now = harness.clock.now();
    bed.fakes.plan.usage(claudeUsagePayload(30, now + 2 * hour), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();

    const plan = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(plan.status).toBe(200);
    expect(plan.headers.get("x-planfirst-rung")).toBe("subscription");
    const paid = await post(harness.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
    expect(paid.status).toBe(200);
    expect(paid.headers.get("x-planfirst-rung")).toBe("cheap");

    // A gateway started later on the same prefix loads what the first one wrote.
    const later = await bed.start({
      config: standardConfig(bed.fakes),
      env: TEST_ENV,
      clock: harness.clock,
      storage,
    });
    const status = await getJson<GatewayStatus>(later.url, "/v1/status");
    expect(connectionOf(status, "claude-plan").quota?.remainingPercent).toBe(70);
    expect(status.budgets.find((b) => b.rung === "cheap")!.spentUsd).toBe(
      Number(paid.headers.get("x-planfirst-cost-usd")),
    );
  });

  it("a plan exhausted through one replica is skipped by the other, which never sends it a request", async () => {
    const { a, b, clock } = await twoReplicas();
    const resetAtMs = clock.now() + hour;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 3600 }),
    ]);

    const first = await post(a.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(first.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(first.headers.get("x-planfirst-attempts")).toBe("2");
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);

    await waitFor(
      async () =>
        connectionOf(await getJson<GatewayStatus>(b.url, "/v1/status"), "claude-plan").quota
          ?.status === "exhausted",
      { what: "the exhausted reading to reach the second replica" },
    );

    const viaB = await post(b.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(viaB.status).toBe(200);
    expect(viaB.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(viaB.headers.get("x-planfirst-attempts")).toBe("1");
    const strict = await post(b.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(strict.status).toBe(429);
    expect(Number(strict.headers.get("retry-after"))).toBe(3600);
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);

    // After the reset a fresh reading taken by B puts the plan back for A as well.
    clock.set(resetAtMs + 1_000);
    bed.fakes.plan.usage(claudeUsagePayload(5, clock.now() + 5 * hour), { endpoint: "claude" });
    await b.server.gateway.refreshUsage();
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.05, resetAtSec: Math.floor((clock.now() + 5 * hour) / 1000) },
      }),
    }));
    const freshAt = new Date(clock.now()).toISOString();
    await waitFor(
      async () => {
        const quota = connectionOf(
          await getJson<GatewayStatus>(a.url, "/v1/status"),
          "claude-plan",
        ).quota;
        return (
          quota?.status === "available" &&
          quota.windows.length > 0 &&
          quota.windows.every((window) => window.observedAt === freshAt)
        );
      },
      { what: "every window of the fresh reading to reach the first replica" },
    );
    const back = await post(a.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(back.status).toBe(200);
    expect(back.headers.get("x-planfirst-rung")).toBe("subscription");
  });

  it("B4/B6: two replicas share one paid-rung budget", async () => {
    // Each request costs $0.006 on the cheap rung: one fits the $0.01 budget, two overshoot it.
    const { a, b } = await twoReplicas(
      { subscriptionLadder: { rungBudgetUsd: { cheap: 0.01 } } },
      { ...TEST_ENV, PLAN_TOKEN: "" },
    );
    bed.fakes.router.script(() => ({ usage: { inputTokens: 30_000, outputTokens: 0 } }));

    const viaA = await post(a.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
    expect(viaA.headers.get("x-planfirst-cost-usd")).toBe("0.006");
    const viaB = await post(b.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
    expect(viaB.status).toBe(200);
    expect(viaB.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(viaB.headers.get("x-planfirst-cost-usd")).toBe("0.006");
    expect(bed.fakes.router.completionHits()).toHaveLength(2);

    // Neither replica spent the budget alone; together they did, and both know it.
    for (const replica of [a, b]) {
      await waitFor(() => ledgerOf(replica).spentUsd("cheap") === 0.012, {
        what: "the shared spend to reach both replicas",
      });
    }
    for (const replica of [a, b]) {
      const response = await post(replica.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      expect(response.status).toBe(200);
      expect(response.headers.get("x-planfirst-rung")).toBe("premium");
    }
    expect(bed.fakes.router.completionHits()).toHaveLength(2);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(2);
    const status = await getJson<GatewayStatus>(a.url, "/v1/status");
    expect(status.budgets.find((budget) => budget.rung === "cheap")).toMatchObject({
      spentUsd: 0.012,
      reservedUsd: 0,
      budgetUsd: 0.01,
    });
  });
});
