import { describe, expect, it } from "vitest";
import { served, usePlanBed } from "./connectors-plans-helpers";

// The Kimi Code connector (an OAuth login) against its fake, through a real gateway: string-number
// usage, a refresh on a 401, and a refused refresh.

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
    expect((await served(harness, "auto/subscription")).rung).toBe("subscription");

    const refreshes = bed.plans.kimi.refreshes;
    bed.plans.kimi.expireAccessTokens();
    const answer = await served(harness, "auto/subscription");
    expect(answer.response.status, answer.text).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(bed.plans.kimi.refreshes).toBe(refreshes + 1);
    bed.plans.kimi.sessionUsed = 10;
  });

  it("a usage poll refused with a 401 refreshes the login once and reads the usage", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    expect((await served(harness, "kimi-for-coding")).response.status).toBe(200);
    const refreshes = bed.plans.kimi.refreshes;
    bed.plans.kimi.expireAccessTokens();
    const outcomes = await harness.server.gateway.refreshUsage();
    expect(outcomes.find((o) => o.connectionId === "kimi")?.status).toBe("refreshed");
    expect(bed.plans.kimi.refreshes).toBe(refreshes + 1);
    expect(harness.server.gateway.deps.quotaCache.get("kimi", "kimi")?.status).toBe("available");
    const usageHits = bed.plans.hits.filter((hit) => hit.path === "/coding/v1/usages");
    expect(usageHits.at(-2)?.label).not.toBe(usageHits.at(-1)?.label);
  });

  it("a refused refresh cools only Kimi; auto/thrifty climbs to the metered rung", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    bed.plans.kimi.failRefreshes(true);
    bed.plans.kimi.expireAccessTokens();
    const answer = await served(harness, "auto/thrifty");
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("cheap");
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("kimi")).toBe(true);
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("metered")).toBe(false);
  });
});
