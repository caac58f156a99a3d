import { claudeRateLimited, type FakeUpstream, serverError } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import type { ModelExplanation } from "../src/routing/explain-model";
import { claudeUsagePayload, TEST_ENV } from "./fixtures";
import { CLAUDE_HARD_STOP_ENTRY, chatBody, getJson, post, useTestBed } from "./harness";

type Name = "planA" | "planB" | "pricier" | "cheaper" | "cheaper2" | "local1" | "local2";
const bed = useTestBed<Name>({
  planA: "anthropic",
  planB: "anthropic",
  pricier: "openai",
  cheaper: "openai",
  cheaper2: "openai",
  local1: "openai",
  local2: "openai",
});

const hour = 3_600_000;

/**
 * Two plan logins of one provider (rung 0), two keyless servers (rung 1), and on the cheap rung a
 * pricier model listed before a cheaper one, the cheaper one served through two keys. Config
 * order is deliberately the opposite of the expected order wherever an order rule applies.
 */
function orderConfig(): GatewayConfigInput {
  const plan = (id: string, fake: FakeUpstream, credential: string) => ({
    id,
    provider: "claude",
    authType: "oauth",
    protocol: "anthropic" as const,
    baseUrl: fake.url,
    credential,
    models: ["claude-sonnet-4-5"],
  });
  const metered = (id: string, fake: FakeUpstream, model: string) => ({
    id,
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl: fake.url,
    credential: "env:ROUTER_KEY",
    models: [model],
  });
  const local = (id: string, fake: FakeUpstream) => ({
    id,
    provider: "ollama",
    authType: "none",
    protocol: "openai" as const,
    baseUrl: fake.url,
    models: ["qwen2.5-coder:7b"],
  });
  return {
    connections: [
      plan("plan-a", bed.fakes.planA, "env:PLAN_TOKEN"),
      plan("plan-b", bed.fakes.planB, "env:PLAN_TOKEN_B"),
      metered("router-pricier", bed.fakes.pricier, "vendor/coder-pricier"),
      metered("router-cheaper", bed.fakes.cheaper, "vendor/coder-cheaper"),
      metered("router-cheaper-2", bed.fakes.cheaper2, "vendor/coder-cheaper"),
      local("local-1", bed.fakes.local1),
      local("local-2", bed.fakes.local2),
    ],
    catalog: {
      connections: [CLAUDE_HARD_STOP_ENTRY],
      models: [
        {
          provider: "openrouter",
          model: "vendor/coder-pricier",
          inputPerMTok: 0.9,
          outputPerMTok: 3,
        },
        {
          provider: "openrouter",
          model: "vendor/coder-cheaper",
          inputPerMTok: 0.1,
          outputPerMTok: 0.3,
        },
      ],
    },
    categories: { paid: ["vendor/*"], local: ["qwen2.5-coder:*"] },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
  };
}

const ENV = { ...TEST_ENV, PLAN_TOKEN_B: "sk-ant-oat01-second-plan-secret-444" };

async function targetsOf(model: string): Promise<string[]> {
  const explained = await getJson<ModelExplanation>(
    bed.harness.url,
    `/v1/ladder?model=${encodeURIComponent(model)}`,
  );
  return explained.targets.map((target) => target.connection);
}

/** Both plans at 50 % used, their 5-hour windows resetting `resetInA` and `resetInB` from now. */
async function planReadings(resetInA: number, resetInB: number): Promise<void> {
  const now = bed.harness.clock.now();
  bed.fakes.planA.usage(claudeUsagePayload(50, now + resetInA), { endpoint: "claude" });
  bed.fakes.planB.usage(claudeUsagePayload(50, now + resetInB), { endpoint: "claude" });
  await bed.harness.server.gateway.refreshUsage();
}

describe("within-rung order, then the ladder, then nothing (THR3, THR5)", () => {
  it("use it or lose it: of two plan logins on rung 0 the one whose window resets sooner goes first", async () => {
    const harness = await bed.start({ config: orderConfig(), env: ENV });
    await planReadings(4 * hour, 1 * hour);
    expect((await targetsOf("auto/subscription")).slice(0, 2)).toEqual(["plan-b", "plan-a"]);
    const first = await post(harness.url, "/v1/chat/completions", chatBody("auto/subscription"));
    expect(first.status).toBe(200);
    expect(first.headers.get("x-planfirst-connection")).toBe("plan-b");
    expect(bed.fakes.planA.completionHits()).toHaveLength(0);

    // Later readings flip the resets: the order follows them, not config order or the last winner.
    harness.clock.advance(200_000);
    await planReadings(30 * 60_000, 3 * hour);
    expect(await targetsOf("auto/subscription")).toEqual(["plan-a", "plan-b"]);
    const second = await post(harness.url, "/v1/chat/completions", chatBody("auto/subscription"));
    expect(second.headers.get("x-planfirst-connection")).toBe("plan-a");

    // The sooner one exhausted mid-request: the other plan serves within the same request.
    bed.fakes.planA.script([
      claudeRateLimited({
        resetAtSec: Math.floor((harness.clock.now() + 30 * 60_000) / 1000),
        retryAfterSec: 1800,
      }),
    ]);
    const third = await post(harness.url, "/v1/chat/completions", chatBody("auto/subscription"));
    expect(third.status).toBe(200);
    expect(third.headers.get("x-planfirst-connection")).toBe("plan-b");
    expect(third.headers.get("x-planfirst-attempts")).toBe("2");
  });

  it("plan logins with no known reset keep config order", async () => {
    const harness = await bed.start({ config: orderConfig(), env: ENV });
    expect((await targetsOf("auto/thrifty")).slice(0, 2)).toEqual(["plan-a", "plan-b"]);
    const response = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(response.headers.get("x-planfirst-connection")).toBe("plan-a");
  });

  it("paid rung: the cheaper target goes first; equal prices keep config order", async () => {
    const harness = await bed.start({ config: orderConfig(), env: ENV });
    expect(await targetsOf("auto/paid:thrifty")).toEqual([
      "router-cheaper",
      "router-cheaper-2",
      "router-pricier",
    ]);
    const response = await post(harness.url, "/v1/chat/completions", chatBody("auto/paid:thrifty"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(response.headers.get("x-planfirst-connection")).toBe("router-cheaper");
    expect(response.headers.get("x-planfirst-model")).toBe("vendor/coder-cheaper");
    expect(bed.fakes.pricier.completionHits()).toHaveLength(0);
  });

  it("keyless rung: config order", async () => {
    const harness = await bed.start({ config: orderConfig(), env: ENV });
    expect(await targetsOf("auto/local:thrifty")).toEqual(["local-1", "local-2"]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/local:thrifty"),
    );
    expect(response.headers.get("x-planfirst-rung")).toBe("keyless");
    expect(response.headers.get("x-planfirst-connection")).toBe("local-1");
  });

  it("THR5: dispatch tries targets in exactly the explained order and falls through in it", async () => {
    const harness = await bed.start({ config: orderConfig(), env: ENV });
    await planReadings(4 * hour, 1 * hour);
    const explained = await targetsOf("auto/thrifty");
    expect(explained).toEqual([
      "plan-b",
      "plan-a",
      "local-1",
      "local-2",
      "router-cheaper",
      "router-cheaper-2",
      "router-pricier",
    ]);

    const hitOrder: string[] = [];
    const connectionOf: Record<Name, string> = {
      planA: "plan-a",
      planB: "plan-b",
      pricier: "router-pricier",
      cheaper: "router-cheaper",
      cheaper2: "router-cheaper-2",
      local1: "local-1",
      local2: "local-2",
    };
    for (const [name, fake] of Object.entries(bed.fakes) as [Name, FakeUpstream][]) {
      fake.script((hit) => {
        hitOrder.push(connectionOf[name]);
        return serverError(hit.protocol ?? "openai");
      });
    }
    const failed = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(failed.status).toBe(502);
    const body = (await failed.json()) as { error: { attempts: { connection: string }[] } };
    expect(hitOrder).toEqual(explained);
    expect(body.error.attempts.map((attempt) => attempt.connection)).toEqual(explained);

    // No stickiness: once the cooldowns are over and fresh readings are in, the order is the
    // explained one again, whatever happened to the last request.
    harness.clock.advance(hour / 2);
    for (const fake of Object.values(bed.fakes)) fake.script([]);
    await planReadings(4 * hour, 1 * hour);
    expect(await targetsOf("auto/thrifty")).toEqual(explained);
    const next = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(next.status).toBe(200);
    expect(next.headers.get("x-planfirst-connection")).toBe("plan-b");
  });
});
