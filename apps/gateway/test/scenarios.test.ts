import { badRequest, claudeRateLimited, claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);

const hour = 3_600_000;

function headroomHeaders(nowMs: number, utilization = 0.2) {
  return claudeUnifiedHeaders({
    fiveHour: { utilization, resetAtSec: Math.floor((nowMs + 2 * hour) / 1000) },
    sevenDay: { utilization: 0.1, resetAtSec: Math.floor((nowMs + 100 * hour) / 1000) },
  });
}

describe("dispatch scenarios (real HTTP, fake upstreams, injected clock)", () => {
  it("plan has headroom: served on rung 0 at cost 0", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const now = harness.clock.now();
    bed.fakes.plan.usage(claudeUsagePayload(20, now + 2 * hour), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    bed.fakes.plan.script(() => ({ headers: headroomHeaders(harness.clock.now()) }));

    const response = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("subscription");
    expect(response.headers.get("x-planfirst-connection")).toBe("claude-plan");
    expect(response.headers.get("x-planfirst-model")).toBe("claude-sonnet-4-5");
    expect(response.headers.get("x-planfirst-attempts")).toBe("1");
    expect(response.headers.get("x-planfirst-cost-usd")).toBe("0");
    const body = (await response.json()) as { content: { text: string }[] };
    expect(body.content[0]!.text).toBe("ok");
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
  });

  it("plan exhausted: auto/thrifty escalates within the request, auto/subscription answers 429 with Retry-After, the plan is not hit again before its reset, and rung 0 is back after the reset", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const clock = harness.clock;
    const resetAtMs = clock.now() + hour;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 3600 }),
    ]);

    const escalated = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(escalated.status).toBe(200);
    expect(escalated.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(escalated.headers.get("x-planfirst-connection")).toBe("openrouter");
    expect(escalated.headers.get("x-planfirst-attempts")).toBe("2");
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);

    const strict = await post(harness.url, "/v1/chat/completions", chatBody("auto/subscription"));
    expect(strict.status).toBe(429);
    expect(Number(strict.headers.get("retry-after"))).toBe(3600);
    const error = (await strict.json()) as {
      error: { code: string; reasons: { connection: string; reason: string }[] };
    };
    expect(error.error.code).toBe("plan_quota_exhausted");
    expect(error.error.reasons.map((r) => r.connection)).toContain("claude-plan");

    // Half an hour later: still before the reset, the exhausted plan is not sent anything.
    clock.advance(hour / 2);
    for (let i = 0; i < 3; i++) {
      const again = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      expect(again.headers.get("x-planfirst-rung")).toBe("cheap");
    }
    const stillStrict = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(stillStrict.status).toBe(429);
    expect(Number(stillStrict.headers.get("retry-after"))).toBe(1800);
    expect(((await stillStrict.json()) as { type: string }).type).toBe("error");
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);

    // The reset instant passes: the next request is back on rung 0, no restart, no backoff.
    clock.set(resetAtMs + 1_000);
    bed.fakes.plan.script(() => ({ headers: headroomHeaders(clock.now(), 0.01) }));
    const back = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(back.status).toBe(200);
    expect(back.headers.get("x-planfirst-rung")).toBe("subscription");
    expect(back.headers.get("x-planfirst-cost-usd")).toBe("0");
    expect(bed.fakes.plan.completionHits()).toHaveLength(2);

    // auto/subscription needs a verified reading: the usage poll takes one after the reset.
    bed.fakes.plan.usage(claudeUsagePayload(1, clock.now() + 5 * hour), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    const strictBack = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(strictBack.status).toBe(200);
    expect(strictBack.headers.get("x-planfirst-rung")).toBe("subscription");
  });

  it("B4: a paid rung at its budget is skipped and the next rung serves", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes, {
        subscriptionLadder: { rungBudgetUsd: { cheap: 0.000001 } },
      }),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    const response = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("premium");
    expect(response.headers.get("x-planfirst-attempts")).toBe("2");
    expect(Number(response.headers.get("x-planfirst-cost-usd"))).toBeGreaterThan(0);
    expect(response.headers.get("x-planfirst-cost-usd")).toMatch(/^\d+(\.\d{1,6})?$/);
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(1);

    const status = (await (await fetch(`${harness.url}/v1/status`)).json()) as {
      budgets: { rung: string; spentUsd: number }[];
    };
    expect(status.budgets.find((b) => b.rung === "premium")!.spentUsd).toBeGreaterThan(0);
    expect(status.budgets.find((b) => b.rung === "cheap")!.spentUsd).toBe(0);
  });

  it("a paid target is settled with the real cost, in micro-dollars", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    bed.fakes.router.script([{ usage: { inputTokens: 1000, outputTokens: 500 } }]);
    const response = await post(harness.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
    expect(response.status).toBe(200);
    // 1000 × $0.20/MTok + 500 × $0.80/MTok = $0.0006
    expect(response.headers.get("x-planfirst-cost-usd")).toBe("0.0006");
  });

  it("a 400 from the first target is returned to the client, not escalated", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.script([badRequest("anthropic", "messages: roles must alternate")]);
    const response = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("roles must alternate");
    expect(response.headers.get("x-planfirst-connection")).toBe("claude-plan");
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(0);
  });

  it("a stream cut mid-way ends with an explicit error event, never a clean end", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    bed.fakes.router.script(() => ({
      stream: { chunks: ["one ", "two ", "three ", "four"], cutAfter: 2 },
    }));

    const openai = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder", { stream: true }),
    );
    expect(openai.status).toBe(200);
    const openaiText = await openai.text();
    expect(openaiText).toContain("one ");
    expect(openaiText).not.toContain("[DONE]");
    const last = openaiText.trim().split("\n\n").at(-1)!;
    expect(JSON.parse(last.replace(/^data: /, ""))).toMatchObject({
      error: { code: "upstream_stream_cut" },
    });

    const anthropic = await post(
      harness.url,
      "/v1/messages",
      messagesBody("qwen/qwen3-coder", { stream: true }),
    );
    const anthropicText = await anthropic.text();
    expect(anthropicText).toContain("event: error");
    expect(anthropicText).not.toContain("message_stop");
  });

  it("a failure before the first streamed byte falls through to the next target", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.script([
      claudeRateLimited({
        resetAtSec: Math.floor((harness.clock.now() + hour) / 1000),
        retryAfterSec: 60,
      }),
    ]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty", { stream: true }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    const text = await response.text();
    expect(text).toContain("[DONE]");
  });

  it("an unknown model is 404 and an undefined category lists the defined ones", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const unknown = await post(harness.url, "/v1/chat/completions", chatBody("gpt-nope"));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe(
      "model_not_found",
    );
    const category = await post(harness.url, "/v1/messages", messagesBody("auto/writing:thrifty"));
    expect(category.status).toBe(404);
    const body = (await category.json()) as { error: { categories: string[] } };
    expect(body.error.categories).toEqual(["coding"]);
  });

  it("categories narrow the pool before the ladder", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/coding:thrifty"),
    );
    expect(response.headers.get("x-planfirst-model")).toBe("qwen/qwen3-coder");
    const ladder = (await (
      await fetch(`${harness.url}/v1/ladder?model=${encodeURIComponent("auto/coding:thrifty")}`)
    ).json()) as { targets: { model: string }[] };
    expect(ladder.targets.map((t) => t.model)).toEqual(["qwen/qwen3-coder"]);
  });
});
