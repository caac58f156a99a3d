import { claudeRateLimited, claudeUnifiedHeaders, type Reply } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import { claudeUsagePayload, routerConnection, TEST_ENV } from "./fixtures";
import {
  CLAUDE_HARD_STOP_ENTRY,
  chatBody,
  getJson,
  type Harness,
  messagesBody,
  post,
  useTestBed,
  waitFor,
} from "./harness";

const bed = useTestBed({ plan: "anthropic", zai: "openai", router: "openai", copilot: "openai" });
const hour = 3_600_000;
const minute = 60_000;
const ENV = { ...TEST_ENV, ZAI_KEY: "zai-secret-key-0001.abcdef", COPILOT: "ghu_secret_444" };

/**
 * One plan and a cheap model: z.ai (catalog: subscription, hard-stop, no quota headers, its usage
 * endpoint not served by the fake) or a Claude login (vouched hard-stop, usage endpoint).
 */
function config(
  plan: "zai" | "claude" = "zai",
  extra: Partial<GatewayConfigInput> = {},
): GatewayConfigInput {
  const all = allConnections();
  return {
    connections: [plan === "zai" ? all[0]! : all[1]!, all[2]!],
    catalog: { connections: [CLAUDE_HARD_STOP_ENTRY] },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    ...extra,
  };
}

function allConnections(): NonNullable<GatewayConfigInput["connections"]> {
  return [
    {
      id: "zai-plan",
      provider: "zai",
      authType: "apikey",
      protocol: "openai",
      baseUrl: bed.fakes.zai.url,
      credential: "env:ZAI_KEY",
      models: ["glm-4.6"],
      timeoutMs: 5_000,
    },
    {
      id: "claude-plan",
      provider: "claude",
      authType: "oauth",
      protocol: "anthropic",
      baseUrl: bed.fakes.plan.url,
      credential: "env:PLAN_TOKEN",
      models: ["claude-sonnet-4-5"],
      timeoutMs: 5_000,
    },
    routerConnection(bed.fakes.router.url, { timeoutMs: 5_000 }),
  ];
}

/** The Beijing wall time z.ai writes in its 1308 message for a UTC instant. */
function beijing(ms: number): string {
  return new Date(ms + 8 * hour).toISOString().slice(0, 19).replace("T", " ");
}

/** z.ai's 5 h window spent (business code 1308), reset named in Beijing time. */
function zaiExhausted(resetMs: number): Reply {
  return {
    status: 429,
    body: {
      error: {
        code: "1308",
        message: `Usage limit reached for 5 hour. Your limit will reset at ${beijing(resetMs)}`,
      },
    },
  };
}

function strictChat(harness: Harness, model = "auto/subscription") {
  return post(harness.url, "/v1/chat/completions", chatBody(model));
}

const zaiHits = () => bed.fakes.zai.completionHits().length;
const claudeHits = () => bed.fakes.plan.completionHits().length;

describe("probes (P1–P5) and the return to the plan after a reset (S2a, S2b)", () => {
  it("P1/P3: a hard-stop plan with no quota reading (z.ai) serves auto/subscription at cold start, as a probe; the 2xx records a served reading", async () => {
    const harness = await bed.start({ config: config(), env: ENV });
    const before = await getJson<{ ladder: { probeable: unknown } }>(
      harness.url,
      "/v1/ladder?model=auto/subscription",
    ).catch(() => null);
    const first = await strictChat(harness);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-planfirst-connection")).toBe("zai-plan");
    expect(first.headers.get("x-planfirst-rung")).toBe("subscription");
    const state = harness.server.gateway.deps.quotaCache.get("zai", "zai-plan", "glm-4.6");
    expect(state?.status).toBe("available");
    expect(state?.remainingPercent).toBeNull();
    // Served (P3): the next request goes through the ladder, not another probe.
    const second = await strictChat(harness);
    expect(second.status).toBe(200);
    expect(zaiHits()).toBe(2);
    expect(before === null || JSON.stringify(before).includes("zai-plan")).toBe(true);
  });

  it("P2/S2b: while a probe is in flight, other strict requests for it are refused with Retry-After: 1 and never reach it", async () => {
    const harness = await bed.start({ config: config(), env: ENV });
    bed.fakes.zai.script([{ delayMs: 400 }]);
    const probe = strictChat(harness);
    await waitFor(() => zaiHits() === 1, { what: "the probe to arrive" });
    const others = await Promise.all([strictChat(harness), strictChat(harness)]);
    for (const other of others) {
      expect(other.status).toBe(429);
      expect(other.headers.get("retry-after")).toBe("1");
      const body = (await other.json()) as { error: { code: string } };
      expect(body.error.code).toBe("plan_quota_exhausted");
    }
    expect((await probe).status).toBe(200);
    expect(zaiHits()).toBe(1);
  });

  it("P4: a quota failure answering a probe is recorded like any other and the request fails closed with the new reading's Retry-After", async () => {
    const harness = await bed.start({ config: config(), env: ENV });
    const resetMs = Math.ceil((harness.clock.now() + 2 * hour) / 1000) * 1000;
    bed.fakes.zai.script([zaiExhausted(resetMs)]);
    const refused = await strictChat(harness);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBe(Math.ceil((resetMs - harness.clock.now()) / 1000));
    const body = (await refused.json()) as {
      error: { code: string; attempts?: unknown[]; resets_at: string };
    };
    expect(body.error.code).toBe("plan_quota_exhausted");
    expect(body.error.attempts).toHaveLength(1);
    expect(body.error.resets_at).toBe(new Date(resetMs).toISOString());
    expect(zaiHits()).toBe(1);
    // S2b: one earliest reset: the 429, /v1/ladder and the status JSON say the same instant.
    const ladder = await getJson<{ earliestReturnAt: string | null }>(
      harness.url,
      "/v1/ladder?model=auto/subscription",
    );
    expect(ladder.earliestReturnAt).toBe(body.error.resets_at);
    const status = await getJson<{ returnAt: Record<string, string | null> }>(
      harness.url,
      "/v1/status",
    );
    expect(status.returnAt["auto/subscription"]).toBe(body.error.resets_at);
  });

  it("P5: a probe never goes to a plan whose effective overage is not hard-stop (unvouched Claude, Copilot: catalog unknown)", async () => {
    const harness = await bed.start({
      config: {
        ...config("claude", { catalog: { connections: [] } }),
        connections: [
          allConnections()[1]!,
          {
            id: "copilot-plan",
            provider: "github-copilot",
            authType: "oauth",
            protocol: "openai",
            baseUrl: bed.fakes.copilot.url,
            credential: "env:COPILOT",
            models: ["gpt-4.1"],
          },
        ],
      },
      env: ENV,
    });
    for (let i = 0; i < 3; i++) {
      const refused = await strictChat(harness);
      expect(refused.status).toBe(429);
      harness.clock.advance(minute);
    }
    expect(claudeHits()).toBe(0);
    expect(bed.fakes.copilot.completionHits()).toHaveLength(0);
  });

  it("S2a (headers-only / probed plan): exhausted with a known reset, z.ai gets no request until the reset, then serves again with no other traffic and no restart", async () => {
    const harness = await bed.start({ config: config(), env: ENV });
    const clock = harness.clock;
    expect((await strictChat(harness)).status).toBe(200); // cold-start probe
    const resetMs = Math.ceil((clock.now() + 2 * hour) / 1000) * 1000;
    bed.fakes.zai.script([zaiExhausted(resetMs)]);
    // The served reading lapses after maxStateAgeMs; the next strict request probes and meets 1308.
    clock.advance(4 * minute);
    expect((await strictChat(harness)).status).toBe(429);
    const hitsWhenExhausted = zaiHits();
    bed.fakes.zai.script(() => ({}));

    // 30 requests (strict, thrifty, concrete) spread up to one second before the reset.
    const step = Math.floor((resetMs - 1_000 - clock.now()) / 30);
    for (let i = 0; i < 30; i++) {
      clock.advance(step);
      const model = ["auto/subscription", "auto/thrifty", "glm-4.6"][i % 3]!;
      const response = await strictChat(harness, model);
      await response.text();
      if (model === "auto/subscription") {
        expect(response.status).toBe(429);
        const retryAfter = Number(response.headers.get("retry-after"));
        expect(retryAfter).toBe(Math.ceil((resetMs - clock.now()) / 1000));
      }
    }
    const requestsWhileExhausted = zaiHits() - hitsWhenExhausted;
    expect(requestsWhileExhausted).toBe(0);

    // The reset passes. With no request at all, the reset timer leaves z.ai probeable, which
    // /v1/ladder shows; the first strict request after the reset is served by the probe.
    clock.set(resetMs + 1);
    const started = performance.now();
    await waitFor(
      async () => {
        const explained = await getJson<{ ladder: { probeable?: { connectionId: string }[] } }>(
          harness.url,
          "/v1/ladder?model=auto/subscription",
        );
        return JSON.stringify(explained.ladder.probeable ?? []).includes("zai-plan");
      },
      { timeoutMs: 2_000, what: "z.ai to be probeable after its reset" },
    );
    const back = await strictChat(harness);
    const backAfterMs = performance.now() - started;
    expect(back.status).toBe(200);
    expect(back.headers.get("x-planfirst-connection")).toBe("zai-plan");
    expect(backAfterMs).toBeLessThan(1_000);
    console.log(
      `S2a zai-plan (probe, no quota headers): back ${clock.now() - resetMs} ms after the reset on the injected clock, ` +
        `${backAfterMs.toFixed(1)} ms of real time; ${requestsWhileExhausted} upstream requests while exhausted`,
    );
  });

  it("S2a (usage endpoint): a Claude plan exhausted on its 5 h window gets no request until the reset; the reset timer refreshes it with no traffic and it serves again", async () => {
    const harness = await bed.start({ config: config("claude"), env: ENV });
    const clock = harness.clock;
    const resetMs = Math.ceil((clock.now() + 2 * hour) / 1000) * 1000;
    bed.fakes.plan.usage(claudeUsagePayload(90, resetMs), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: 7_200 }),
    ]);
    const exhausting = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(exhausting.status).toBe(429);
    const hitsWhenExhausted = claudeHits();
    bed.fakes.plan.script(() => ({}));
    const step = Math.floor((resetMs - 1_000 - clock.now()) / 20);
    for (let i = 0; i < 20; i++) {
      clock.advance(step);
      const response = await post(
        harness.url,
        "/v1/messages",
        messagesBody(i % 2 ? "auto/thrifty" : "claude-sonnet-4-5"),
      );
      await response.text();
      const strict = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
      expect(strict.status).toBe(429);
      expect(Number(strict.headers.get("retry-after"))).toBe(
        Math.ceil((resetMs - clock.now()) / 1000),
      );
    }
    const requestsWhileExhausted = claudeHits() - hitsWhenExhausted;
    expect(requestsWhileExhausted).toBe(0);
    const usageBefore = bed.fakes.plan.hits.filter((h) => h.kind === "usage").length;

    // The window resets. No request: the timer alone takes the fresh reading.
    bed.fakes.plan.usage(claudeUsagePayload(0, resetMs + 5 * hour), { endpoint: "claude" });
    clock.set(resetMs + 250);
    const started = performance.now();
    await waitFor(
      () => bed.fakes.plan.hits.filter((h) => h.kind === "usage").length > usageBefore,
      {
        timeoutMs: 2_000,
        what: "the reset timer's usage refresh",
      },
    );
    await waitFor(
      () =>
        harness.server.gateway.deps.quotaCache.get("claude", "claude-plan", "claude-sonnet-4-5")
          ?.remainingPercent === 90,
      { what: "the fresh reading" },
    );
    const refreshedAfterMs = performance.now() - started;
    const back = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(back.status).toBe(200);
    expect(back.headers.get("x-planfirst-connection")).toBe("claude-plan");
    expect(claudeHits()).toBe(hitsWhenExhausted + 1);
    expect(refreshedAfterMs).toBeLessThan(1_000);
    console.log(
      `S2a claude-plan (usage endpoint): refreshed by the reset timer ${(250 + refreshedAfterMs).toFixed(0)} ms after the reset ` +
        `(250 ms skew + ${refreshedAfterMs.toFixed(1)} ms real), ${requestsWhileExhausted} upstream requests while exhausted`,
    );
  });

  it("S2b: a client that waited out its Retry-After past the 5 h reset is served, not sent to the 7-day window's reset", async () => {
    const harness = await bed.start({ config: config("claude"), env: ENV });
    const clock = harness.clock;
    const resetMs = Math.ceil((clock.now() + hour) / 1000) * 1000;
    bed.fakes.plan.script([
      {
        headers: claudeUnifiedHeaders({
          fiveHour: { utilization: 0.5, resetAtSec: resetMs / 1000 },
        }),
      },
      claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: 3_600 }),
    ]);
    expect(
      (await post(harness.url, "/v1/messages", messagesBody("auto/subscription"))).status,
    ).toBe(200);
    const refused = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(refused.headers.get("x-planfirst-rung")).toBe("cheap");
    const strict = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    const retryAfter = Number(strict.headers.get("retry-after"));
    expect(retryAfter).toBe(Math.ceil((resetMs - clock.now()) / 1000));

    clock.advance(retryAfter * 1000);
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.01, resetAtSec: resetMs / 1000 + 5 * 3600 },
      }),
    }));
    const waited = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(waited.status).toBe(200);
    expect(waited.headers.get("x-planfirst-connection")).toBe("claude-plan");
  });

  it("S2b: Retry-After is never computed from a stale window: while the reading past its reset is being retaken, it is 1", async () => {
    const harness = await bed.start({ config: config(), env: ENV });
    const clock = harness.clock;
    const resetMs = Math.ceil((clock.now() + hour) / 1000) * 1000;
    bed.fakes.zai.script([{}, zaiExhausted(resetMs)]);
    expect((await strictChat(harness)).status).toBe(200);
    clock.advance(4 * minute);
    expect((await strictChat(harness)).status).toBe(429);
    clock.set(resetMs + 1);
    bed.fakes.zai.script([{ delayMs: 400 }]);
    const probe = strictChat(harness);
    await waitFor(() => zaiHits() === 3, { what: "the probe after the reset" });
    const meanwhile = await strictChat(harness);
    expect(meanwhile.status).toBe(429);
    expect(meanwhile.headers.get("retry-after")).toBe("1");
    expect((await probe).status).toBe(200);
  });
});
