import { badRequest, unauthorized } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { ModelExplanation } from "../src/routing/explain-model";
import type { GatewayStatus } from "../src/status/gateway-status";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, getJson, ledgerOf, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);

function totalHits(): number {
  return Object.values(bed.fakes).reduce((sum, fake) => sum + fake.completionHits().length, 0);
}

const anthropicError = (status: number, type: string, message: string) => ({
  status,
  body: { type: "error", error: { type, message } },
});

describe("client errors are answered, credential errors fall through", () => {
  for (const [status, type] of [
    [400, "invalid_request_error"],
    [404, "not_found_error"],
    [413, "request_too_large"],
    [422, "invalid_request_error"],
  ] as const) {
    it(`a ${status} from the plan on auto/thrifty reaches the client with its meaning, and no other target is tried`, async () => {
      const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
      bed.fakes.plan.script([anthropicError(status, type, `upstream says ${status}`)]);

      const viaOpenAi = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      expect(viaOpenAi.status).toBe(status);
      const openAiBody = (await viaOpenAi.json()) as { error: { message: string; type: string } };
      expect(openAiBody.error.message).toBe(`upstream says ${status}`);
      expect(openAiBody.error.type).toBe(type);
      expect(viaOpenAi.headers.get("x-planfirst-connection")).toBe("claude-plan");
      expect(viaOpenAi.headers.get("x-planfirst-attempts")).toBe("1");
      expect(totalHits()).toBe(1);

      // A bad request says nothing about the plan: the next good request is served by it.
      const next = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      expect(next.status).toBe(200);
      expect(next.headers.get("x-planfirst-rung")).toBe("subscription");
      expect(bed.fakes.router.completionHits()).toHaveLength(0);
      expect(bed.fakes.pricey.completionHits()).toHaveLength(0);
    });
  }

  it("a 400 on /v1/messages keeps the Anthropic shape and type", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.script([badRequest("anthropic", "messages.0.content: Field required")]);
    const response = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      type: string;
      error: { type: string; message: string };
    };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toBe("messages.0.content: Field required");
    expect(totalHits()).toBe(1);
  });

  it("a 400 from a paid first target is returned, never retried on another paid rung, and its reservation released", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    bed.fakes.router.script([badRequest("openai", "Invalid 'messages[0].role'")]);
    const response = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      type: string;
      error: { type: string; message: string };
    };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toBe("Invalid 'messages[0].role'");
    expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(response.headers.get("x-planfirst-cost-usd")).toBe("0");
    expect(bed.fakes.router.completionHits()).toHaveLength(1);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(0);
    const ledger = ledgerOf(harness);
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(ledger.spentUsd("cheap")).toBe(0);
  });

  it("a 400 on auto/subscription is returned as is, not turned into plan_quota_exhausted", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const now = harness.clock.now();
    bed.fakes.plan.usage(
      { five_hour: { utilization: 10, resets_at: new Date(now + 3_600_000).toISOString() } },
      { endpoint: "claude" },
    );
    await harness.server.gateway.refreshUsage();
    bed.fakes.plan.script([badRequest("anthropic", "max_tokens: must be positive")]);
    const response = await post(harness.url, "/v1/chat/completions", chatBody("auto/subscription"));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toBe("max_tokens: must be positive");
    expect(totalHits()).toBe(1);
  });

  it("a 401 on a plan falls through to the next rung and cools that connection", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.script([unauthorized("anthropic")]);

    const response = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(response.headers.get("x-planfirst-attempts")).toBe("2");
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);

    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const plan = status.connections.find((connection) => connection.id === "claude-plan")!;
    expect(plan.cooldownUntil).not.toBeNull();
    const explained = await getJson<ModelExplanation>(harness.url, "/v1/ladder?model=auto/thrifty");
    expect(explained.targets.map((target) => target.connection)).not.toContain("claude-plan");
    expect(explained.excluded).toContainEqual(
      expect.objectContaining({
        connectionId: "claude-plan",
        reason: expect.stringMatching(/^cooling down/),
      }),
    );

    // While it cools, no request is sent to the plan: not on thrifty, not on subscription.
    harness.clock.advance(60_000);
    const again = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(again.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(again.headers.get("x-planfirst-attempts")).toBe("1");
    const strict = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(strict.status).toBe(429);
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);
  });
});
