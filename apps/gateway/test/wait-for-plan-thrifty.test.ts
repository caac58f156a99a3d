import { claudeRateLimited } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { standardConfig, TEST_ENV } from "./fixtures";
import { messagesBody, post } from "./harness";
import {
  KEYLESS,
  planBack,
  untilWaiting,
  useWaitForPlanBed,
  WAITED,
} from "./wait-for-plan-helpers";

// ladder.md §17 on auto/thrifty: with maxWaitBeforePaidMs a request waits for the plan instead of
// paying for the cheap rung, and climbs to it when the plan is still spent after the reset.

const { bed, config, exhaustPlan, planHits } = useWaitForPlanBed();

describe("waiting for the plan (ladder.md §17)", () => {
  it("WAIT2: auto/thrifty with maxWaitBeforePaidMs waits for the plan instead of the cheap rung, after its keyless rung failed", async () => {
    const keyless = { ...KEYLESS, baseUrl: bed.fakes.local.url };
    const harness = await bed.start({
      config: config({
        connections: [...standardConfig(bed.fakes).connections!, keyless],
        subscriptionLadder: { maxWaitBeforePaidMs: 30_000 },
      }),
      env: TEST_ENV,
    });
    const resetMs = await exhaustPlan(harness, 5_000);
    const hitsWhenOut = planHits();
    bed.fakes.plan.script(() => planBack(harness));
    bed.fakes.local.script(() => ({ status: 503, body: { error: { message: "loading" } } }));
    const held = post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    await untilWaiting(harness, 1);
    expect(bed.fakes.local.completionHits()).toHaveLength(1);
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
    expect(planHits()).toBe(hitsWhenOut);

    harness.clock.set(resetMs + 250);
    const served = await held;
    expect(served.status).toBe(200);
    expect(served.headers.get("x-planfirst-rung")).toBe("subscription");
    expect(Number(served.headers.get(WAITED))).toBeGreaterThanOrEqual(5_250);
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
  });

  it("WAIT5: auto/thrifty whose plan is still spent after the reset climbs to the cheap rung, the time waited counted", async () => {
    const harness = await bed.start({
      config: config({ subscriptionLadder: { maxWaitBeforePaidMs: 30_000 } }),
      env: TEST_ENV,
    });
    const resetMs = await exhaustPlan(harness, 5_000);
    const held = post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    await untilWaiting(harness, 1);
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
    const laterMs = resetMs + 3_600_000;
    bed.fakes.plan.script([claudeRateLimited({ resetAtSec: laterMs / 1000, retryAfterSec: 3600 })]);
    harness.clock.set(resetMs + 250);
    const climbed = await held;
    expect(climbed.status).toBe(200);
    expect(climbed.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(Number(climbed.headers.get(WAITED))).toBeGreaterThanOrEqual(5_250);
    expect(bed.fakes.router.completionHits()).toHaveLength(1);
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toContain(
      'planfirst_waits_total{connection="claude-plan",outcome="climbed"} 1',
    );
  });

  it("WAIT2: auto/thrifty still uses a keyless rung at once when one serves, and climbs at once when the plan is back only after its wait", async () => {
    const keyless = { ...KEYLESS, baseUrl: bed.fakes.local.url };
    const harness = await bed.start({
      config: config({
        connections: [...standardConfig(bed.fakes).connections!, keyless],
        subscriptionLadder: { maxWaitBeforePaidMs: 30_000 },
      }),
      env: TEST_ENV,
    });
    await exhaustPlan(harness, 60_000);
    const atOnce = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(atOnce.status).toBe(200);
    expect(atOnce.headers.get("x-planfirst-rung")).toBe("keyless");
    expect(atOnce.headers.get(WAITED)).toBeNull();

    bed.fakes.local.script(() => ({ status: 503, body: { error: { message: "loading" } } }));
    const climbed = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(climbed.status).toBe(200);
    expect(climbed.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(climbed.headers.get(WAITED)).toBeNull();
  });
});
