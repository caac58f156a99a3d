import { describe, expect, it } from "vitest";
import { served, usePlanBed } from "./connectors-plans-helpers";

// The Kimi Code connector (an OAuth login) against its fake, through a real gateway: string-number
// usage, a refresh on a 401, a refused refresh, and Kimi's refusal of a client that is not a
// coding agent (quota-signals.md §15). Requests come from Claude Code unless a test says not.

/** Claude Code's User-Agent, which Kimi For Coding admits and the gateway forwards. */
const CLAUDE_CODE = { "user-agent": "claude-cli/2.1.0 (external, cli)" };

const bed = usePlanBed();
const { gateway } = bed;

describe("Kimi Code plan (OAuth login)", () => {
  function kimiConnection() {
    return {
      id: "kimi",
      provider: "kimi",
      authType: "oauth",
      protocol: "openai" as const,
      baseUrl: bed.plans.kimi.baseUrl,
      credential: {
        refreshToken: "env:KIMI_REFRESH",
        accessToken: "env:KIMI_ACCESS",
        tokenUrl: bed.plans.kimi.tokenUrl,
        clientId: bed.plans.kimi.clientId,
      },
      models: ["kimi-for-coding"],
      timeoutMs: 5_000,
    };
  }
  function kimiEnv() {
    const login = bed.plans.kimi.issueLogin();
    return { KIMI_REFRESH: login.refreshToken, KIMI_ACCESS: login.accessToken };
  }

  it("reads the string-number usage, and a 401 on a revoked token refreshes once and serves the same request", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    bed.plans.kimi.sessionUsed = 40;
    await harness.server.gateway.refreshUsage();
    const state = harness.server.gateway.deps.quotaCache.get("kimi", "kimi");
    expect(state?.remainingPercent).toBe(60);
    expect((await served(harness, "auto/subscription", {}, CLAUDE_CODE)).rung).toBe("subscription");

    const refreshes = bed.plans.kimi.refreshes;
    bed.plans.kimi.expireAccessTokens();
    const answer = await served(harness, "auto/subscription", {}, CLAUDE_CODE);
    expect(answer.response.status, answer.text).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(bed.plans.kimi.refreshes).toBe(refreshes + 1);
    bed.plans.kimi.sessionUsed = 10;
  });

  it("a usage poll refused with a 401 refreshes the login once and reads the usage", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    expect((await served(harness, "kimi-for-coding", {}, CLAUDE_CODE)).response.status).toBe(200);
    const refreshes = bed.plans.kimi.refreshes;
    bed.plans.kimi.expireAccessTokens();
    const outcomes = await harness.server.gateway.refreshUsage();
    expect(outcomes.find((o) => o.connectionId === "kimi")?.status).toBe("refreshed");
    expect(bed.plans.kimi.refreshes).toBe(refreshes + 1);
    expect(harness.server.gateway.deps.quotaCache.get("kimi", "kimi")?.status).toBe("available");
    const usageHits = bed.plans.hits.filter((hit) => hit.path === "/coding/v1/usages");
    expect(usageHits.at(-2)?.label).not.toBe(usageHits.at(-1)?.label);
  });

  it("a client Kimi does not admit falls through without cooling the plan, which still serves Claude Code", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    await harness.server.gateway.refreshUsage();
    const sdk = { "user-agent": "OpenAI/JS 5.20.0" };
    const thrifty = await served(harness, "auto/thrifty", {}, sdk);
    expect(thrifty.response.status, thrifty.text).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    const { cooldowns, quotaCache } = harness.server.gateway.deps;
    expect(cooldowns.isCoolingDown("kimi")).toBe(false);
    expect(quotaCache.get("kimi", "kimi")?.status).not.toBe("exhausted");

    // auto/subscription has nothing else: the client is told why, and the plan is still whole.
    const refused = await served(harness, "auto/subscription", {}, sdk);
    expect(refused.response.status, refused.text).toBe(403);
    expect(refused.text).toContain("client_refused");
    expect(refused.text).toContain("Kimi For Coding serves only the coding agents");
    expect(cooldowns.isCoolingDown("kimi")).toBe(false);

    const claude = await served(harness, "auto/subscription", {}, CLAUDE_CODE);
    expect(claude.response.status, claude.text).toBe(200);
    expect(claude.rung).toBe("subscription");
    const sent = bed
      .completionHits("/coding/v1/chat/completions")
      .map((hit) => hit.headers["user-agent"]);
    // The gateway sends each client's own User-Agent, never one it made up.
    expect(sent).toEqual([sdk["user-agent"], sdk["user-agent"], CLAUDE_CODE["user-agent"]]);
  });

  it("a refused refresh cools only Kimi; auto/thrifty climbs to the metered rung", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    bed.plans.kimi.failRefreshes(true);
    bed.plans.kimi.expireAccessTokens();
    const answer = await served(harness, "auto/thrifty", {}, CLAUDE_CODE);
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("cheap");
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("kimi")).toBe(true);
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("metered")).toBe(false);
  });
});
