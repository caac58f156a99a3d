import { describe, expect, it } from "vitest";
import { TEST_ENV } from "./fixtures";
import { messagesBody, post } from "./harness";
import {
  logLines,
  planBack,
  strict,
  untilWaiting,
  useWaitForPlanBed,
  WAIT,
  WAITED,
} from "./wait-for-plan-helpers";

// ladder.md §17, the line of requests waiting for one plan: released in arrival order after the
// reset, full at 256, left by a client that goes away, kept through a reload, shown on the page.

const { bed, config, exhaustPlan, planHits } = useWaitForPlanBed();

describe("waiting for the plan (ladder.md §17)", () => {
  it("WAIT3/WAIT4: 100 waiters are all served after the reset, released in arrival order, the first as the probe", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 60_000);
    const hitsWhenOut = planHits();
    bed.fakes.plan.script(() => planBack(harness));
    const answers: Promise<Response>[] = [];
    for (let i = 0; i < 100; i++) {
      answers.push(
        post(
          harness.url,
          "/v1/messages",
          messagesBody("auto/subscription", {
            messages: [{ role: "user", content: `waiter ${i}` }],
          }),
          { [WAIT]: "120" },
        ),
      );
      await untilWaiting(harness, i + 1);
    }
    expect(planHits()).toBe(hitsWhenOut);
    harness.clock.set(resetMs + 250);
    const responses = await Promise.all(answers);
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.headers.get("x-planfirst-connection")).toBe("claude-plan");
    }
    expect(planHits()).toBe(hitsWhenOut + 100);
    const heldOrder = logLines(harness, "held: waiting for the plan to come back").map(
      (line) => line.requestId,
    );
    const releaseOrder = logLines(harness, "released: the plan is back").map(
      (line) => line.requestId,
    );
    expect(heldOrder).toHaveLength(100);
    expect(releaseOrder).toEqual(heldOrder);
    // Two probes: the cold-start request that found the window spent, then the first in line.
    const probes = logLines(harness, "probing a hard-stop plan with no fresh reading");
    expect(probes.map((line) => line.requestId).slice(1)).toEqual([heldOrder[0]]);
  }, 30_000);

  it("WAIT3: the 257th waiter of one plan is refused at once (the 429 it would have had); the 256 in line are served after the reset", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 60_000);
    bed.fakes.plan.script(() => planBack(harness));
    const answers = Array.from({ length: 256 }, () => strict(harness, { [WAIT]: "120" }));
    await untilWaiting(harness, 256);
    const started = performance.now();
    const refused = await strict(harness, { [WAIT]: "120" });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get(WAITED)).toBeNull();
    harness.clock.set(resetMs + 250);
    const responses = await Promise.all(answers);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(256);
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toContain(
      'planfirst_waits_total{connection="claude-plan",outcome="room_full"} 1',
    );
    expect(metrics).toContain('planfirst_waits_started_total{connection="claude-plan"} 256');
  }, 30_000);

  it("WAIT3: a client that goes away while waiting leaves the line and costs no upstream request", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 60_000);
    const hitsWhenOut = planHits();
    bed.fakes.plan.script(() => planBack(harness));
    const controller = new AbortController();
    const leaving = fetch(`${harness.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", [WAIT]: "120" },
      body: JSON.stringify(messagesBody("auto/subscription")),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await untilWaiting(harness, 1);
    const staying = strict(harness, { [WAIT]: "120" });
    await untilWaiting(harness, 2);
    controller.abort();
    await leaving;
    await untilWaiting(harness, 1);

    harness.clock.set(resetMs + 250);
    expect((await staying).status).toBe(200);
    expect(planHits()).toBe(hitsWhenOut + 1);
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toContain(
      'planfirst_waits_total{connection="claude-plan",outcome="disconnected"} 1',
    );
  });

  it("WAIT3: a request waiting through a config reload keeps waiting on the configuration it arrived on, and is served after the reset", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 5_000);
    bed.fakes.plan.script(() => planBack(harness));
    const before = strict(harness, { [WAIT]: "30" });
    await untilWaiting(harness, 1);
    const gateway = harness.server.gateway;
    const { config: current } = gateway.deps;
    const outcome = await gateway.reload({
      ...current,
      subscriptionLadder: { ...current.subscriptionLadder, maxWaiting: 10 },
    });
    expect(outcome.reloaded).toBe(true);
    const after = strict(harness, { [WAIT]: "30" });
    await untilWaiting(harness, 1);
    harness.clock.set(resetMs + 250);
    const [first, second] = await Promise.all([before, after]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.headers.get("x-planfirst-connection")).toBe("claude-plan");
  });

  it("WAIT7: the status page shows the requests waiting for a plan and the reset they wait for", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const resetMs = await exhaustPlan(harness, 60_000);
    const held = [strict(harness, { [WAIT]: "120" }), strict(harness, { [WAIT]: "120" })];
    await untilWaiting(harness, 2);
    const page = await (await fetch(`${harness.url}/`)).text();
    const card = page.slice(page.indexOf('data-connection="claude-plan"'));
    expect(card).toContain('data-waiting="2"');
    expect(card).toContain("2 requests wait for its return at");
    expect(card).toContain(`datetime="${new Date(resetMs).toISOString()}"`);
    harness.clock.set(resetMs + 250);
    await Promise.all(held);
  });
});
