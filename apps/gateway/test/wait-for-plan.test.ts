import { claudeRateLimited } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, waitFor } from "./harness";
import {
  logLines,
  planBack,
  recordOf,
  status,
  strict,
  untilWaiting,
  useWaitForPlanBed,
  WAIT,
  WAITED,
  waitingFor,
} from "./wait-for-plan-helpers";

// ladder.md §17: a request that asks to wait is held, with nothing sent upstream, until its plan
// comes back. Time is the injected clock: the tests move it past a reset, and the gateway notices
// within its timers' longest sleep (500 ms of real time), as it does a jumping clock.

const { bed, config, exhaustPlan, planHits } = useWaitForPlanBed();

describe("waiting for the plan (ladder.md §17)", () => {
  it("WAIT2/WAIT4: a plan exhausted with a reset 5 s away: a 30 s wait is served by the plan after the reset, the plan seeing no request while out; a 2 s wait is refused at once", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 5_000);
    const hitsWhenOut = planHits();
    bed.fakes.plan.script(() => planBack(harness));

    const started = performance.now();
    const short = await strict(harness, { [WAIT]: "2" });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(short.status).toBe(429);
    expect(short.headers.get("retry-after")).toBe("5");
    expect(short.headers.get(WAITED)).toBeNull();
    expect(((await short.json()) as { error: { code: string } }).error.code).toBe(
      "plan_quota_exhausted",
    );

    const arrivedMs = harness.clock.now();
    const held = strict(harness, { [WAIT]: "30" });
    await untilWaiting(harness, 1);
    const waitingNow = (await status(harness)).connections.find((c) => c.id === "claude-plan");
    expect(waitingNow?.waiting).toEqual({ requests: 1, returnAt: new Date(resetMs).toISOString() });
    harness.clock.advance(4_000);
    await harness.server.gateway.refreshUsage();
    expect(planHits()).toBe(hitsWhenOut);

    harness.clock.set(resetMs + 250);
    const served = await held;
    expect(served.status).toBe(200);
    expect(served.headers.get("x-planfirst-connection")).toBe("claude-plan");
    expect(served.headers.get("x-planfirst-rung")).toBe("subscription");
    const waitedMs = Number(served.headers.get(WAITED));
    expect(waitedMs).toBeGreaterThanOrEqual(resetMs + 250 - arrivedMs);
    expect(planHits()).toBe(hitsWhenOut + 1);
    expect(await waitingFor(harness, "claude-plan")).toBe(0);
    const record = await recordOf(harness, (r) => r.waitedMs > 0);
    expect(record).toMatchObject({ status: 200, rung: "subscription", waitedMs });

    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toContain('planfirst_waits_started_total{connection="claude-plan"} 1');
    expect(metrics).toContain('planfirst_waits_total{connection="claude-plan",outcome="served"} 1');
    expect(metrics).toMatch(/planfirst_wait_seconds_count\{connection="claude-plan"\} 1/);
  });

  it("WAIT2: a plan that runs out under the request itself (its 429) holds that request until the reset, then serves it", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    // A first request verifies the plan (cold start probe) with headroom to spare.
    bed.fakes.plan.script(() => planBack(harness));
    expect((await strict(harness, {})).status).toBe(200);
    const resetMs = harness.clock.now() + 5_000;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: 5 }),
      planBack(harness),
    ]);
    const held = strict(harness, { [WAIT]: "30" });
    await untilWaiting(harness, 1);
    expect(planHits()).toBe(2);
    harness.clock.set(resetMs + 250);
    const served = await held;
    expect(served.status).toBe(200);
    expect(served.headers.get("x-planfirst-connection")).toBe("claude-plan");
    expect(Number(served.headers.get(WAITED))).toBeGreaterThanOrEqual(5_250);
    expect(planHits()).toBe(3);
  });

  it("WAIT4/P2: a request that may wait, meeting another request's probe in flight, waits for its answer instead of Retry-After: 1, and is released once", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    // The probe outlasts the line's first look (500 ms), which must see it in flight.
    bed.fakes.plan.script([{ ...planBack(harness), delayMs: 1_200 }, planBack(harness)]);
    const probe = strict(harness, {});
    await waitFor(() => planHits() === 1, { what: "the cold-start probe" });
    const waiting = strict(harness, { [WAIT]: "30" });
    const refusedMeanwhile = await strict(harness, {});
    expect(refusedMeanwhile.status).toBe(429);
    expect(refusedMeanwhile.headers.get("retry-after")).toBe("1");
    expect((await probe).status).toBe(200);
    const served = await waiting;
    expect(served.status).toBe(200);
    expect(served.headers.get(WAITED)).not.toBeNull();
    expect(planHits()).toBe(2);
    expect(logLines(harness, "released: the plan is back")).toHaveLength(1);
  });

  it("WAIT5: a wait that ends without the plan (its probe meets the window still spent) becomes the 429 of the new reading, the time waited counted", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 5_000);
    const held = strict(harness, { [WAIT]: "30" });
    await untilWaiting(harness, 1);
    const laterMs = resetMs + 3_600_000;
    bed.fakes.plan.script([claudeRateLimited({ resetAtSec: laterMs / 1000, retryAfterSec: 3600 })]);
    const hitsBefore = planHits();
    harness.clock.set(resetMs + 250);
    const refused = await held;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(
      Math.ceil((laterMs - harness.clock.now()) / 1000),
    );
    expect(Number(refused.headers.get(WAITED))).toBeGreaterThanOrEqual(5_250);
    // One request reached the plan: the probe that took the new reading.
    expect(planHits()).toBe(hitsBefore + 1);
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toContain(
      'planfirst_waits_total{connection="claude-plan",outcome="refused"} 1',
    );
  });

  it("WAIT1: x-planfirst-max-wait: 0 does not wait, whatever the default; a bad value is a 400 naming the header", async () => {
    const harness = await bed.start({
      config: config({ subscriptionLadder: { maxWaitMs: 30_000 } }),
      env: TEST_ENV,
    });
    await exhaustPlan(harness, 5_000);
    const noWait = await strict(harness, { [WAIT]: "0" });
    expect(noWait.status).toBe(429);
    expect(noWait.headers.get(WAITED)).toBeNull();
    for (const value of ["-1", "1e3", "5s", "", "five"]) {
      for (const [path, body] of [
        ["/v1/messages", messagesBody("auto/subscription")],
        ["/v1/chat/completions", chatBody("auto/subscription")],
      ] as const) {
        const bad = await post(harness.url, path, body, { [WAIT]: value });
        expect(bad.status).toBe(400);
        const error = ((await bad.json()) as { error: { code: string; message: string } }).error;
        expect(error.code).toBe("invalid_max_wait");
        expect(error.message).toContain("x-planfirst-max-wait");
        expect(error.message).toContain("non-negative number of seconds");
      }
    }
  });

  it("WAIT1: the default maxWaitMs holds a request that says nothing, capped by maxWaitCapMs", async () => {
    const harness = await bed.start({
      config: config({ subscriptionLadder: { maxWaitMs: 30_000, maxWaitCapMs: 10_000 } }),
      env: TEST_ENV,
    });
    const resetMs = await exhaustPlan(harness, 20_000);
    // The reset is 20 s away: within the default (30 s) but not the cap (10 s).
    const capped = await strict(harness, { [WAIT]: "60" });
    expect(capped.status).toBe(429);
    harness.clock.advance(12_000);
    const held = strict(harness, {});
    await untilWaiting(harness, 1);
    harness.clock.set(resetMs + 250);
    expect((await held).status).toBe(200);
  });
});
