import Anthropic from "@anthropic-ai/sdk";
import type { FakeUpstream } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import {
  type ConnectionInput,
  claudeUsagePayload,
  STANDARD_FAKES,
  standardConfig,
  TEST_ENV,
} from "./fixtures";
import {
  chatBody,
  getJson,
  type Harness,
  messagesBody,
  post,
  useTestBed,
  waitFor,
} from "./harness";

// connections[].maxConcurrent: a full connection is busy, not failing. Requests beyond the limit
// pass it over for a later target or wait in line for it; nothing is cooled, no quota state is
// written, and the waits are counted as local capacity. Upstream streams are held open by the
// fake (`holdUntil`) until the test lets them go, so nothing here waits on a timer of its own.

const bed = useTestBed(STANDARD_FAKES);
const hour = 3_600_000;

/** Holds every stream the fake starts open after its opening frame until `release()`. */
function holdStreams(fake: FakeUpstream) {
  let holding = true;
  const releases: (() => void)[] = [];
  fake.script(() => {
    if (!holding) return {};
    const holdUntil = new Promise<void>((resolve) => releases.push(resolve));
    return { stream: { chunks: ["slow", " but", " whole"], holdUntil } };
  });
  return {
    release() {
      holding = false;
      for (const release of releases.splice(0)) release();
    },
  };
}

/**
 * The standard config with the plan limited to `maxConcurrent` (and `extra` settings), and a
 * fresh reading of the plan unless `reading` is false.
 */
async function startLimited(
  maxConcurrent: number,
  extra: Partial<ConnectionInput> = {},
  reading = true,
) {
  const standard = standardConfig(bed.fakes);
  const [plan, ...rest] = standard.connections!;
  const harness = await bed.start({
    config: { ...standard, connections: [{ ...plan!, maxConcurrent, ...extra }, ...rest] },
    env: TEST_ENV,
  });
  if (reading) {
    // A fresh, verified reading: the plan is admitted to auto/subscription.
    bed.fakes.plan.usage(claudeUsagePayload(40, harness.clock.now() + 2 * hour), {
      endpoint: "claude",
    });
    await harness.server.gateway.refreshUsage();
  }
  return harness;
}

/** One sample of the gateway's /metrics, 0 when absent. */
async function metric(harness: Harness, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${harness.url}/metrics`)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

/** The plan's quota reading and cooldowns, as the gateway keeps them. */
function planState(harness: Harness) {
  const { deps } = harness.server.gateway;
  return {
    quota: structuredClone(deps.quotaCache.get("claude", "claude-plan")),
    cooldowns: deps.cooldowns.activeCooldowns("claude-plan"),
    evidence: deps.quotaCache.overageEvidence("claude-plan"),
  };
}

const streamPlan = (harness: Harness, signal?: AbortSignal) =>
  fetch(`${harness.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(messagesBody("auto/subscription", { stream: true })),
    ...(signal ? { signal } : {}),
  });

describe("a connection at its maxConcurrent", () => {
  it("serves 5 slow streams 2 at a time on auto/subscription: the rest wait in line, nothing is cooled, no quota state changes", async () => {
    const harness = await startLimited(2);
    const before = planState(harness);
    expect(before.quota?.status).toBe("available");
    const held = holdStreams(bed.fakes.plan);

    const responses = Array.from({ length: 5 }, () => streamPlan(harness));
    await waitFor(
      async () =>
        (await metric(harness, "planfirst_connection_queued", 'connection="claude-plan"')) === 3,
      { what: "three requests in line" },
    );
    // The upstream holds two streams; the other three were never sent.
    expect(bed.fakes.plan.completionHits()).toHaveLength(2);
    expect(
      await metric(harness, "planfirst_connection_in_flight", 'connection="claude-plan"'),
    ).toBe(2);

    held.release();
    for (const pending of responses) {
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.headers.get("x-planfirst-connection")).toBe("claude-plan");
      expect(response.headers.get("x-planfirst-attempts")).toBe("1");
      const text = await response.text();
      expect(text).toContain("message_stop");
      expect(text).not.toContain('"type":"error"');
    }
    expect(bed.fakes.plan.completionHits()).toHaveLength(5);

    // Busy was never taken for failing: no cooldown, no reading, no evidence written.
    expect(planState(harness)).toEqual(before);
    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const card = status.connections.find((connection) => connection.id === "claude-plan")!;
    expect(card.cooldownUntil).toBeNull();
    expect(
      await metric(
        harness,
        "planfirst_local_capacity_total",
        'connection="claude-plan",outcome="queued"',
      ),
    ).toBe(3);
    const exposition = await (await fetch(`${harness.url}/metrics`)).text();
    expect(exposition).not.toMatch(/^planfirst_fallthroughs_total\{/m);
    expect(
      await metric(harness, "planfirst_connection_in_flight", 'connection="claude-plan"'),
    ).toBe(0);
  });

  it("answers 503 local_capacity with Retry-After 1 when the wait in line ends first, and still cools nothing", async () => {
    const harness = await startLimited(2, { maxQueueWaitMs: 100 });
    const before = planState(harness);
    const held = holdStreams(bed.fakes.plan);

    // The held two answer 200 at once (their streams have begun); the three in line answer when
    // the gateway's own wait ends.
    const answered: Response[] = [];
    const responses = Array.from({ length: 5 }, () =>
      streamPlan(harness).then((response) => {
        answered.push(response);
        return response;
      }),
    );
    await waitFor(() => answered.filter((response) => response.status === 503).length === 3, {
      what: "three refusals",
    });
    expect(answered.filter((response) => response.status === 200)).toHaveLength(2);
    for (const response of answered.filter((answer) => answer.status === 503)) {
      expect(response.headers.get("retry-after")).toBe("1");
      const body = (await response.json()) as {
        type: string;
        error: { type: string; code: string; message: string; attempts: { outcome: string }[] };
      };
      expect(body.type).toBe("error");
      expect(body.error.code).toBe("local_capacity");
      expect(body.error.message).toContain("gateway's own concurrency limit");
      expect(body.error.message).toContain("the upstream did not fail");
      expect(body.error.attempts).toEqual([
        expect.objectContaining({ connection: "claude-plan", outcome: "local_capacity" }),
      ]);
    }
    held.release();
    for (const response of await Promise.all(responses)) {
      if (response.status === 200) expect(await response.text()).toContain("message_stop");
    }
    expect(bed.fakes.plan.completionHits()).toHaveLength(2);
    expect(planState(harness)).toEqual(before);
    expect(
      await metric(
        harness,
        "planfirst_local_capacity_total",
        'connection="claude-plan",outcome="refused"',
      ),
    ).toBe(3);
  });

  it("on auto/thrifty is passed over for this request only: the next rung serves, the plan is not cooled", async () => {
    const harness = await startLimited(2);
    const before = planState(harness);
    const held = holdStreams(bed.fakes.plan);
    const thrifty = () =>
      post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty", { stream: true }));

    const onPlan = [thrifty(), thrifty()];
    await waitFor(() => bed.fakes.plan.completionHits().length === 2, { what: "two streams" });
    for (let i = 0; i < 3; i++) {
      const response = await thrifty();
      expect(response.status).toBe(200);
      expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
      expect(response.headers.get("x-planfirst-attempts")).toBe("2");
      expect(await response.text()).toContain("[DONE]");
    }
    held.release();
    for (const pending of onPlan) {
      const response = await pending;
      expect(response.headers.get("x-planfirst-rung")).toBe("subscription");
      await response.text();
    }
    // Free again and never cooled: the next request is the plan's.
    const next = await thrifty();
    expect(next.headers.get("x-planfirst-rung")).toBe("subscription");
    await next.text();
    expect(planState(harness)).toEqual(before);
    expect(
      await metric(
        harness,
        "planfirst_local_capacity_total",
        'connection="claude-plan",outcome="passed_over"',
      ),
    ).toBe(3);
    const exposition = await (await fetch(`${harness.url}/metrics`)).text();
    expect(exposition).not.toMatch(/^planfirst_fallthroughs_total\{/m);
  });

  it("lets a client that gives up while in line leave it with nothing sent upstream", async () => {
    const harness = await startLimited(1);
    const held = holdStreams(bed.fakes.plan);
    const first = streamPlan(harness);
    await waitFor(() => bed.fakes.plan.completionHits().length === 1, { what: "one stream" });
    const giveUp = new AbortController();
    const queued = streamPlan(harness, giveUp.signal).catch((error: unknown) => error);
    await waitFor(
      async () =>
        (await metric(harness, "planfirst_connection_queued", 'connection="claude-plan"')) === 1,
      { what: "a request in line" },
    );
    giveUp.abort();
    expect(await queued).toBeInstanceOf(Error);
    await waitFor(
      async () =>
        (await metric(
          harness,
          "planfirst_local_capacity_total",
          'connection="claude-plan",outcome="abandoned"',
        )) === 1,
      { what: "the request to leave the line" },
    );
    held.release();
    expect((await first).status).toBe(200);
    await (await first).text();
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);
    expect(await metric(harness, "planfirst_connection_queued", 'connection="claude-plan"')).toBe(
      0,
    );
  });
  it("is not probed past its limit: a strict request finding the unread plan full gets 503 local_capacity", async () => {
    // No reading yet: auto/thrifty may use the plan (THR1), auto/subscription only by a probe.
    const harness = await startLimited(1, {}, false);
    const held = holdStreams(bed.fakes.plan);
    const thrifty = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty", { stream: true }),
    );
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("subscription");

    const strict = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(strict.status).toBe(503);
    expect(strict.headers.get("retry-after")).toBe("1");
    const body = (await strict.json()) as { error: { code: string; attempts: unknown[] } };
    expect(body.error.code).toBe("local_capacity");
    expect(body.error.attempts).toEqual([
      expect.objectContaining({ connection: "claude-plan", outcome: "local_capacity" }),
    ]);
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);
    held.release();
    await thrifty.text();
  });
});

describe("the official Anthropic SDK against a full connection", () => {
  it("waits out Retry-After: 1 of a 503 local_capacity and is served once a slot is free", async () => {
    const harness = await startLimited(1, { maxQueueWaitMs: 0 });
    const held = holdStreams(bed.fakes.plan);
    const first = await streamPlan(harness);
    expect(first.status).toBe(200);
    const anthropic = new Anthropic({ baseURL: harness.url, apiKey: "unused", maxRetries: 1 });
    const refusals = () =>
      metric(
        harness,
        "planfirst_local_capacity_total",
        'connection="claude-plan",outcome="refused"',
      );
    const answer = anthropic.messages
      .create({
        model: "auto/subscription",
        max_tokens: 16,
        messages: [{ role: "user", content: "hello" }],
        stream: true,
      })
      .then(async (stream) => {
        let text = "";
        for await (const event of stream) {
          if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
            text += event.delta.text;
          }
        }
        return text;
      });
    // Its first try was refused at once; its retry waits the second the 503 asked for.
    await waitFor(async () => (await refusals()) === 1, { what: "the SDK's first try refused" });
    held.release();
    await first.text();
    expect(await answer).toBe("ok"); // the fake's default answer, once it holds no more
    expect(await refusals()).toBe(1);
    expect(bed.fakes.plan.completionHits()).toHaveLength(2);
    expect(planState(harness).cooldowns).toEqual([]);
  });
});

describe("a connection without maxConcurrent", () => {
  it("carries 70 streams to one upstream at once: no hidden cap, no wait, no cooldown", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const held = holdStreams(bed.fakes.router);
    const responses = Array.from({ length: 70 }, () =>
      post(harness.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder", { stream: true })),
    );
    await waitFor(() => bed.fakes.router.completionHits().length === 70, {
      what: "70 streams open upstream",
    });
    held.release();
    for (const pending of responses) {
      const response = await pending;
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("[DONE]");
    }
    expect(harness.server.gateway.deps.cooldowns.activeCooldowns("openrouter")).toEqual([]);
  });
});
