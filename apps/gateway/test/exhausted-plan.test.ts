import { claudeRateLimited, claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({ config: standardConfig(fakes), env: TEST_ENV }),
});

const hour = 3_600_000;

function usageHits(): number {
  return bed.fakes.plan.hits.filter((hit) => hit.kind === "usage").length;
}
const minute = 60_000;

/** The 20 requests: every id that could reach the plan, on both APIs, streamed or not. */
const REQUESTS = [
  ["/v1/chat/completions", chatBody("auto/thrifty")],
  ["/v1/messages", messagesBody("auto/thrifty")],
  ["/v1/chat/completions", chatBody("auto/subscription")],
  ["/v1/messages", messagesBody("auto/subscription", { stream: true })],
  ["/v1/chat/completions", chatBody("auto/coding:thrifty", { stream: true })],
  ["/v1/messages", messagesBody("claude-sonnet-4-5")],
  ["/v1/chat/completions", chatBody("auto/coding:subscription")],
  ["/v1/messages", messagesBody("auto/thrifty", { stream: true })],
  ["/v1/chat/completions", chatBody("claude-sonnet-4-5", { stream: true })],
  ["/v1/messages", messagesBody("auto/coding:thrifty")],
] as const;

describe("an exhausted plan (429 with a known reset)", () => {
  it("is sent nothing before its reset, across 20 requests; after the reset and a fresh reading, rung 0 serves again", async () => {
    const clock = bed.harness.clock;
    const resetAtMs = clock.now() + 2 * hour;
    bed.fakes.plan.usage(claudeUsagePayload(90, resetAtMs), { endpoint: "claude" });
    await bed.harness.server.gateway.refreshUsage();
    // The plan answers one request, then runs out.
    bed.fakes.plan.script([
      {},
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 7200 }),
    ]);
    const served = await post(bed.harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(served.headers.get("x-planfirst-rung")).toBe("subscription");
    const exhausting = await post(
      bed.harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty"),
    );
    expect(exhausting.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(bed.fakes.plan.completionHits()).toHaveLength(2);

    // 20 requests spread over the two hours up to one second before the reset, with the usage
    // pollers asked to run every fifth request.
    bed.fakes.plan.script(() => ({}));
    const stepMs = Math.floor((resetAtMs - 1_000 - clock.now()) / 20);
    for (let i = 0; i < 20; i++) {
      clock.advance(stepMs);
      if (i % 5 === 4) await bed.harness.server.gateway.refreshUsage();
      const [path, body] = REQUESTS[i % REQUESTS.length]!;
      const response = await post(bed.harness.url, path, body);
      await response.text();
      const model = body.model;
      if (model.endsWith(":subscription") || model === "auto/subscription") {
        expect(response.status, `${i}: ${model}`).toBe(429);
        const retryAfter = Number(response.headers.get("retry-after"));
        expect(retryAfter).toBe(Math.ceil((resetAtMs - clock.now()) / 1000));
      } else if (model === "claude-sonnet-4-5") {
        // The only connection serving this model is out: an error, never a plan request.
        expect(response.status, `${i}: ${model}`).toBeGreaterThanOrEqual(400);
      } else {
        expect(response.status, `${i}: ${model}`).toBe(200);
        expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
      }
      expect(bed.fakes.plan.completionHits(), `plan hit by request ${i}`).toHaveLength(2);
    }
    expect(clock.now()).toBeLessThan(resetAtMs);
    // Nor is its usage endpoint polled while it is known to be cooling until the reset.
    expect(usageHits()).toBe(1);

    // The reset passes and a fresh reading arrives: rung 0 serves again, on both ids.
    clock.set(resetAtMs + 1_000);
    bed.fakes.plan.usage(claudeUsagePayload(0, clock.now() + 5 * hour), { endpoint: "claude" });
    await bed.harness.server.gateway.refreshUsage();
    expect(usageHits()).toBe(2);
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.01, resetAtSec: Math.floor((clock.now() + 5 * hour) / 1000) },
      }),
    }));
    const strict = await post(bed.harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(strict.status).toBe(200);
    expect(strict.headers.get("x-planfirst-rung")).toBe("subscription");
    expect(strict.headers.get("x-planfirst-attempts")).toBe("1");
    clock.advance(minute);
    const thrifty = await post(bed.harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("subscription");
    expect(bed.fakes.plan.completionHits()).toHaveLength(4);
  });
});

describe("a plan back from exhaustion but below the re-entry floor (H2)", () => {
  it("is out of auto/subscription, and the 429 and /v1/ladder give its reset as the time to come back", async () => {
    const clock = bed.harness.clock;
    const hitsBefore = bed.fakes.plan.completionHits().length;
    const firstResetMs = clock.now() + 10 * minute;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(firstResetMs / 1000), retryAfterSec: 600 }),
    ]);
    const exhausting = await post(
      bed.harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty"),
    );
    expect(exhausting.headers.get("x-planfirst-rung")).toBe("cheap");

    // The window resets; a fresh reading says 3 % remain, under the 5 % re-entry floor.
    clock.set(firstResetMs + 1_000);
    const nextResetMs = Math.ceil((clock.now() + hour) / 1000) * 1000;
    bed.fakes.plan.usage(claudeUsagePayload(97, nextResetMs), { endpoint: "claude" });
    await bed.harness.server.gateway.refreshUsage();

    const refused = await post(bed.harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(refused.status).toBe(429);
    const retryAfterSec = Math.ceil((nextResetMs - clock.now()) / 1000);
    expect(Number(refused.headers.get("retry-after"))).toBe(retryAfterSec);
    const body = (await refused.json()) as { error: { code: string; resets_at: string } };
    expect(body.error.code).toBe("plan_quota_exhausted");
    expect(body.error.resets_at).toBe(new Date(nextResetMs).toISOString());

    const ladder = await fetch(`${bed.harness.url}/v1/ladder?model=auto/subscription`, {
      headers: { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` },
    });
    const explanation = (await ladder.json()) as { earliestReturnAt: string | null };
    expect(explanation.earliestReturnAt).toBe(body.error.resets_at);
    // One request reached the plan (the one that exhausted it); the refused one did not.
    expect(bed.fakes.plan.completionHits()).toHaveLength(hitsBefore + 1);
  });
});
