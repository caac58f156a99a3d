import { claudeRateLimited, claudeUnifiedHeaders, type Reply } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import type { RequestRecord } from "../src/observability/request-log/request-record";
import type { GatewayStatus } from "../src/status/gateway-status";
import { type ConnectionInput, standardConfig, TEST_ENV } from "./fixtures";
import {
  chatBody,
  getJson,
  type Harness,
  messagesBody,
  post,
  useTestBed,
  waitFor,
} from "./harness";

// ladder.md §17: a request that asks to wait is held, with nothing sent upstream, until its plan
// comes back. Time is the injected clock: the tests move it past a reset, and the gateway notices
// within its timers' longest sleep (500 ms of real time), as it does a jumping clock.

const bed = useTestBed({ plan: "anthropic", router: "openai", pricey: "openai", local: "openai" });
const WAIT = "x-planfirst-max-wait";
const WAITED = "x-planfirst-waited-ms";

const KEYLESS: ConnectionInput = {
  id: "local",
  provider: "ollama",
  authType: "none",
  protocol: "openai",
  baseUrl: "",
  models: ["qwen2.5-coder:7b"],
  timeoutMs: 5_000,
};

function config(extra: Partial<GatewayConfigInput> = {}): GatewayConfigInput {
  const base = standardConfig(bed.fakes);
  return {
    ...base,
    ...extra,
    subscriptionLadder: { ...base.subscriptionLadder, ...extra.subscriptionLadder },
  };
}

/** The Claude plan answers its 5 h window spent, back in `inMs` (one upstream request). */
async function exhaustPlan(harness: Harness, inMs: number): Promise<number> {
  const resetMs = harness.clock.now() + inMs;
  bed.fakes.plan.script([
    claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: Math.ceil(inMs / 1000) }),
  ]);
  const refused = await strict(harness, { [WAIT]: "0" });
  expect(refused.status).toBe(429);
  await refused.text();
  return resetMs;
}

function strict(harness: Harness, headers: Record<string, string>, model = "auto/subscription") {
  return post(harness.url, "/v1/messages", messagesBody(model), headers);
}

const planHits = () => bed.fakes.plan.completionHits().length;

/** What the Claude plan answers once its window is back: 1 % used, the next reset 5 h away. */
function planBack(harness: Harness): Reply {
  return {
    headers: claudeUnifiedHeaders({
      fiveHour: { utilization: 0.01, resetAtSec: Math.floor(harness.clock.now() / 1000) + 18_000 },
    }),
  };
}

async function status(harness: Harness): Promise<GatewayStatus> {
  return getJson<GatewayStatus>(harness.url, "/v1/status");
}

async function waitingFor(harness: Harness, connectionId: string): Promise<number> {
  const current = await status(harness);
  return current.connections.find((c) => c.id === connectionId)?.waiting?.requests ?? 0;
}

/** Waits (real time) until `count` requests are in the plan's line. */
async function untilWaiting(harness: Harness, count: number, connectionId = "claude-plan") {
  await waitFor(
    () =>
      harness.server.gateway.context.dispatcher.waiting
        .rooms()
        .some((room) => room.connectionId === connectionId && room.waiting === count),
    { what: `${count} requests waiting for ${connectionId}` },
  );
}

/** The request log's record of the request that `match` picks, once it is written. */
async function recordOf(
  harness: Harness,
  match: (record: RequestRecord) => boolean,
): Promise<RequestRecord> {
  let found: RequestRecord | undefined;
  await waitFor(
    async () => {
      const response = await fetch(`${harness.url}/v1/requests`);
      const records = ((await response.json()) as { data: RequestRecord[] }).data;
      found = records.find(match);
      return found !== undefined;
    },
    { what: "the request's record" },
  );
  return found!;
}

/** Log lines (JSON) with message `msg`, parsed. */
function logLines(harness: Harness, msg: string): Record<string, unknown>[] {
  return harness.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

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

  it("WAIT6: a streaming Anthropic request held past 10 s gets its headers and ping events, then the plan's stream after the reset; its receipt is logged", async () => {
    const harness = await bed.start({
      config: config({ subscriptionLadder: { heldStreamKeepAliveMs: 20 } }),
      env: TEST_ENV,
    });
    const resetMs = await exhaustPlan(harness, 30_000);
    bed.fakes.plan.script(() => planBack(harness));
    const answer = post(
      harness.url,
      "/v1/messages",
      messagesBody("auto/subscription", { stream: true }),
      { [WAIT]: "60" },
    );
    await untilWaiting(harness, 1);
    harness.clock.advance(10_000);
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("x-planfirst-rung")).toBeNull();
    const body = streamText(response);
    await body.until((text) => text.split("event: ping").length > 3, "three pings");
    expect(body.text()).toMatch(/^event: ping\ndata: \{"type":"ping"\}\n\n/);
    expect(body.text()).not.toContain("message_start");

    harness.clock.set(resetMs + 250);
    const text = await body.end();
    const events = text.split("\n\n").filter(Boolean);
    const afterPings = events.filter((event) => !event.startsWith("event: ping"));
    expect(afterPings[0]).toMatch(/^event: message_start/);
    expect(afterPings.at(-1)).toMatch(/^event: message_stop/);
    // Its receipt could not follow the headers: the request log and the log line have it.
    const record = await recordOf(harness, (r) => r.stream && r.waitedMs > 0);
    expect(record).toMatchObject({
      status: 200,
      outcome: "served",
      rung: "subscription",
      connection: "claude-plan",
    });
    expect(record.waitedMs).toBeGreaterThanOrEqual(30_250);
    const receipt = logLines(harness, "held stream answered")[0];
    expect(receipt).toMatchObject({ rung: "subscription", connection: "claude-plan", status: 200 });
    expect(Number(receipt?.waitedMs)).toBe(record.waitedMs);
  });

  it("WAIT6: a held OpenAI chat stream whose wait ends without the plan ends with the chat error frame, never [DONE]", async () => {
    const harness = await bed.start({
      config: config({ subscriptionLadder: { heldStreamKeepAliveMs: 20 } }),
      env: TEST_ENV,
    });
    const resetMs = await exhaustPlan(harness, 30_000);
    const answer = post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/subscription", { stream: true }),
      { [WAIT]: "60" },
    );
    await untilWaiting(harness, 1);
    harness.clock.advance(10_000);
    const response = await answer;
    expect(response.status).toBe(200);
    const body = streamText(response);
    await body.until((text) => text.startsWith(": keep-alive\n\n"), "a keep-alive comment");
    const laterMs = resetMs + 3_600_000;
    bed.fakes.plan.script([claudeRateLimited({ resetAtSec: laterMs / 1000, retryAfterSec: 3600 })]);
    harness.clock.set(resetMs + 250);
    const text = await body.end();
    expect(text).not.toContain("[DONE]");
    const last = text.split("\n\n").filter(Boolean).at(-1)!;
    const frame = JSON.parse(last.replace(/^data: /, "")) as {
      error: { type: string; code: string; message: string };
    };
    expect(frame.error.type).toBe("rate_limit_error");
    expect(frame.error.code).toBe("plan_quota_exhausted");
    const record = await recordOf(harness, (r) => r.stream && r.waitedMs > 0);
    expect(record).toMatchObject({ status: 429, outcome: "plan_quota_exhausted" });
  });
});

/** Reads a response body as text while it streams. */
function streamText(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let done = false;
  const pump = (async () => {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    done = true;
  })();
  return {
    text: () => text,
    async until(condition: (text: string) => boolean, what: string) {
      await waitFor(() => done || condition(text), { what });
      expect(condition(text)).toBe(true);
    },
    async end() {
      await pump;
      return text;
    },
  };
}
