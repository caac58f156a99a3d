import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeRateLimited, claudeUnifiedHeaders, type Reply } from "@planfirst/fake-upstream";
import { afterAll, describe, expect, it } from "vitest";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import {
  CLAUDE_HARD_STOP_ENTRY,
  chatBody,
  deleteRedisKeys,
  messagesBody,
  post,
  redisStorage,
  useTestBed,
} from "./harness";

const bed = useTestBed(STANDARD_FAKES);

// Removed once every test's gateways are closed (after each test): a gateway still writes its
// spend, request log and status history to Redis, and its journal, as it closes.
const leftovers: Array<{ keyPrefix: string; dir: string }> = [];
afterAll(async () => {
  for (const { keyPrefix, dir } of leftovers) {
    await deleteRedisKeys(keyPrefix);
    rmSync(dir, { recursive: true, force: true });
  }
});
const hour = 3_600_000;
const minute = 60_000;

/** The standard ladder with the bundled catalog only: no vouch block for the Claude login. */
function unvouched() {
  return standardConfig(bed.fakes, { catalog: { connections: [] } });
}

function planHeaders(nowMs: number, overageStatus: "allowed" | "allowed_warning" | "rejected") {
  return claudeUnifiedHeaders({
    fiveHour: { utilization: 0.2, resetAtSec: Math.floor((nowMs + 4 * hour) / 1000) },
    sevenDay: { utilization: 0.3, resetAtSec: Math.floor((nowMs + 3 * 86_400_000) / 1000) },
    overageStatus,
  });
}

/** An Anthropic error body, as the Messages API sends it. */
function anthropicError(status: number, type: string, message: string): Reply {
  return {
    status,
    body: { type: "error", error: { type, message }, request_id: "req_011CSHFnpGvMZTZ9cBVnYwr1" },
  };
}

const THIRD_PARTY_400 = anthropicError(
  400,
  "invalid_request_error",
  "Third-party apps now draw from your extra usage, not your plan limits. Turn on extra usage to keep using this app.",
);
const OUT_OF_EXTRA_400 = anthropicError(
  400,
  "invalid_request_error",
  "You're out of extra usage. Add more at claude.ai/settings/usage and keep going.",
);
const LONG_CONTEXT_429 = anthropicError(
  429,
  "rate_limit_error",
  "Extra usage is required for long context requests.",
);

async function strict(url: string) {
  const response = await post(url, "/v1/messages", messagesBody("auto/subscription"));
  const body = (await response.json()) as { error?: { code: string; reasons?: unknown } };
  return { response, body };
}

describe("live overage evidence decides a Claude login's auto/subscription safety (ladder.md §14)", () => {
  it("E2/SUB2: with the bundled catalog and no vouch block, a plan whose responses say extra usage is off (overage-status rejected + disabled reason) serves auto/subscription", async () => {
    const harness = await bed.start({ config: unvouched(), env: TEST_ENV });
    // Cold: overage unknown by the catalog, no evidence: out (SUB2), and never probed (P5).
    const cold = await strict(harness.url);
    expect(cold.response.status).toBe(429);
    expect(JSON.stringify(cold.body)).toContain("overage");
    expect(bed.fakes.plan.completionHits()).toHaveLength(0);

    bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now(), "rejected") }));
    const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-connection")).toBe("claude-plan");
    const served = await strict(harness.url);
    expect(served.response.status).toBe(200);
    expect(served.response.headers.get("x-planfirst-connection")).toBe("claude-plan");

    const ladder = (await (
      await fetch(`${harness.url}/v1/ladder?model=auto/subscription`, {
        headers: { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` },
      })
    ).json()) as {
      ladder: {
        candidates: {
          connections: { connectionId: string; overage: string; overageEvidence: unknown }[];
        }[];
      };
    };
    const plan = ladder.ladder.candidates
      .flatMap((c) => c.connections)
      .find((c) => c.connectionId === "claude-plan");
    expect(plan?.overage).toBe("hard-stop");
    expect(JSON.stringify(plan?.overageEvidence)).toContain("evidence-off");
  });

  it("E2/SUB2: the usage endpoint's extra_usage.is_enabled: false makes an unvouched plan serve auto/subscription", async () => {
    const harness = await bed.start({ config: unvouched(), env: TEST_ENV });
    bed.fakes.plan.usage(
      {
        ...claudeUsagePayload(30, harness.clock.now() + 2 * hour),
        extra_usage: { is_enabled: false, monthly_limit: null, used_credits: null },
      },
      { endpoint: "claude" },
    );
    await harness.server.gateway.refreshUsage();
    const served = await strict(harness.url);
    expect(served.response.status).toBe(200);
    expect(served.response.headers.get("x-planfirst-rung")).toBe("subscription");
  });

  it("E1/E3: a plan whose responses say extra usage is on (overage-status allowed) never serves auto/subscription, vouched or not", async () => {
    for (const config of [unvouched(), standardConfig(bed.fakes)]) {
      const harness = await bed.start({ config, env: TEST_ENV });
      const hitsBefore = bed.fakes.plan.completionHits().length;
      bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now(), "allowed") }));
      const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      expect(thrifty.status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const refused = await strict(harness.url);
        expect(refused.response.status).toBe(429);
        expect(refused.body.error?.code).toBe("plan_quota_exhausted");
        expect(JSON.stringify(refused.body)).toMatch(/overage|bills/);
        harness.clock.advance(minute);
      }
      // The thrifty request is the only one that reached the plan.
      expect(bed.fakes.plan.completionHits()).toHaveLength(hitsBefore + 1);
      await harness.close();
    }
  });

  it("E1/E3: the usage endpoint's extra_usage.is_enabled: true keeps even a vouched plan off auto/subscription", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.usage(
      {
        ...claudeUsagePayload(30, harness.clock.now() + 2 * hour),
        extra_usage: { is_enabled: true, monthly_limit: 5000, used_credits: 120 },
      },
      { endpoint: "claude" },
    );
    await harness.server.gateway.refreshUsage();
    const refused = await strict(harness.url);
    expect(refused.response.status).toBe(429);
    expect(bed.fakes.plan.completionHits()).toHaveLength(0);
  });

  for (const [name, reply] of [
    ['the 400 "Third-party apps now draw from your extra usage"', THIRD_PARTY_400],
    ['the 400 "You\'re out of extra usage"', OUT_OF_EXTRA_400],
    ['the 429 "Extra usage is required for long context requests"', LONG_CONTEXT_429],
  ] as const) {
    it(`E4: ${name} is a money refusal: auto/thrifty falls through to the next rung, and auto/subscription sends the plan nothing while the evidence is fresh`, async () => {
      const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
      bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now(), "rejected") }));
      expect((await strict(harness.url)).response.status).toBe(200);
      bed.fakes.plan.script([reply]);
      const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      expect(thrifty.status).toBe(200);
      expect(thrifty.headers.get("x-planfirst-rung")).toBe("cheap");
      expect(bed.fakes.router.completionHits()).toHaveLength(1);
      const hits = bed.fakes.plan.completionHits().length;

      // The plan answers fine again, with headers that say overage is off: the fresh `on` wins
      // for as long as it is fresh (maxStateAgeMs, 180 s by default).
      bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now(), "rejected") }));
      for (let i = 0; i < 5; i++) {
        harness.clock.advance(30_000);
        const refused = await strict(harness.url);
        expect(refused.response.status).toBe(429);
        expect(JSON.stringify(refused.body.error?.reasons)).toMatch(/bills past its plan|overage/);
      }
      expect(bed.fakes.plan.completionHits()).toHaveLength(hits);
    });
  }

  it("E4: one evidence `on` takes effect at once on every replica (Redis)", async () => {
    const storage = redisStorage();
    const dir = mkdtempSync(join(tmpdir(), "planfirst-evidence-"));
    leftovers.push({ keyPrefix: storage.keyPrefix, dir });
    const a = await bed.start({
      config: standardConfig(bed.fakes),
      env: TEST_ENV,
      storage: { ...storage, journalPath: join(dir, "a.db") },
    });
    const b = await bed.start({
      config: standardConfig(bed.fakes),
      env: TEST_ENV,
      storage: { ...storage, journalPath: join(dir, "b.db") },
      clock: a.clock,
    });
    await Promise.all([a.server.gateway.ready(), b.server.gateway.ready()]);
    bed.fakes.plan.script(() => ({ headers: planHeaders(a.clock.now(), "rejected") }));
    expect((await strict(b.url)).response.status).toBe(200);
    bed.fakes.plan.script([THIRD_PARTY_400]);
    const thrifty = await post(a.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("cheap");
    const hits = bed.fakes.plan.completionHits().length;
    // Past the money refusal's own backoff, so only the evidence keeps it out on replica b.
    a.clock.advance(20_000);
    let refused = 0;
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline) {
      const answer = await strict(b.url);
      if (answer.response.status === 429) {
        refused++;
        break;
      }
    }
    expect(refused).toBe(1);
    // Whatever raced pub/sub, nothing after the refusal's propagation reached the plan again.
    const after = bed.fakes.plan.completionHits().length;
    expect((await strict(b.url)).response.status).toBe(429);
    expect(bed.fakes.plan.completionHits()).toHaveLength(after);
    expect(after - hits).toBeLessThanOrEqual(1);
  });

  it("E1/E3: a metered key's every answer is evidence `on`: an operator entry calling an OpenRouter key a hard-stop plan does not bring it to auto/subscription once it has answered", async () => {
    const config = standardConfig(bed.fakes, {
      catalog: {
        connections: [
          {
            provider: "openrouter",
            authType: "apikey",
            billing: "subscription",
            overage: "hard-stop",
            reason: "test: an operator entry that mistakes a metered key for a plan",
            sources: ["https://openrouter.ai/docs"],
            reviewed: "2026-11-30",
          },
        ],
      },
    });
    // One OpenRouter connection: each metered key bills its first answer before it says so (E5).
    config.connections = config.connections?.filter((c) => c.id !== "openrouter-premium");
    const harness = await bed.start({
      config,
      env: TEST_ENV,
    });
    const direct = await post(harness.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
    expect(direct.status).toBe(200);
    expect(direct.headers.get("x-planfirst-connection")).toBe("openrouter");
    const hits = bed.fakes.router.completionHits().length;

    const refused = await strict(harness.url);
    expect(refused.response.status).toBe(429);
    expect(JSON.stringify(refused.body.error?.reasons)).toMatch(/bills past its plan/);
    expect(bed.fakes.router.completionHits()).toHaveLength(hits);
  });

  it("E5: an operator `overage: meters-to-paid` is final: evidence off never admits the plan", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes, {
        catalog: {
          connections: [
            {
              ...CLAUDE_HARD_STOP_ENTRY,
              overage: "meters-to-paid",
              reason: "test: the operator wants no exposure between two readings",
            },
          ],
        },
      }),
      env: TEST_ENV,
    });
    bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now(), "rejected") }));
    const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-connection")).toBe("claude-plan");
    const refused = await strict(harness.url);
    expect(refused.response.status).toBe(429);
    expect(bed.fakes.plan.completionHits()).toHaveLength(1);
  });

  it("an implausible reset time is counted per connection and source and warned about once, never with a secret", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const far = Math.floor((harness.clock.now() + 400 * 86_400_000) / 1000);
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.2, resetAtSec: far },
        overageStatus: "rejected",
      }),
    }));
    for (let i = 0; i < 3; i++) {
      const response = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
      expect(response.status).toBe(200);
    }
    const metrics = await (
      await fetch(`${harness.url}/metrics`, {
        headers: { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` },
      })
    ).text();
    const line = metrics
      .split("\n")
      .find((l) => l.startsWith('planfirst_implausible_times_total{connection="claude-plan"'));
    expect(line).toBeDefined();
    expect(Number(line?.split(" ").at(-1))).toBeGreaterThanOrEqual(3);
    const warnings = harness.logs.filter((l) => l.includes("beyond its window"));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    const keys = warnings.map((l) => {
      const o = JSON.parse(l) as { window: string; field: string; source: string };
      return `${o.window}|${o.field}|${o.source}`;
    });
    expect(new Set(keys).size).toBe(keys.length);
    for (const secret of Object.values(TEST_ENV)) {
      expect(harness.logs.join("")).not.toContain(secret);
      expect(metrics).not.toContain(secret);
    }
  });

  it("S2b: a plan that answered 429 with Retry-After: 5 gives a strict Retry-After of about 5, never 0", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const resetAtSec = Math.floor((harness.clock.now() + 5_000) / 1000);
    bed.fakes.plan.script([
      { headers: planHeaders(harness.clock.now(), "rejected") },
      claudeRateLimited({ resetAtSec, retryAfterSec: 5 }),
    ]);
    expect((await strict(harness.url)).response.status).toBe(200);
    const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("cheap");
    const refused = await strict(harness.url);
    expect(refused.response.status).toBe(429);
    const retryAfter = Number(refused.response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(retryAfter).toBeGreaterThanOrEqual(4);
  });
});
