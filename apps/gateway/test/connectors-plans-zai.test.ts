import { describe, expect, it } from "vitest";
import { served, usePlanBed } from "./connectors-plans-helpers";

// The z.ai coding plan connector against its fake, through a real gateway: the usage poll, the
// 1308 refusal with its Beijing-time reset, and a key the monitor API refuses.

const bed = usePlanBed();
const { gateway, completionHits, zaiConnection } = bed;

describe("z.ai coding plan", () => {
  it("is served on rung 0 (a hard stop in the catalog) and reads the 5 h window from the usage poll", async () => {
    const harness = await gateway([zaiConnection()], { ZAI_KEY: bed.plans.zai.apiKey }, []);
    bed.plans.zai.tokensPercentUsed = 35;
    await harness.server.gateway.refreshUsage();
    const state = harness.server.gateway.deps.quotaCache.get("zai", "zai");
    expect(state?.remainingPercent).toBe(65);
    const answer = await served(harness, "auto/subscription");
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(completionHits("/api/coding/paas/v4/chat/completions").at(-1)?.scheme).toBe("Bearer");
    bed.plans.zai.tokensPercentUsed = 20;
  });

  it("1308 escalates on auto/thrifty and gives auto/subscription the Beijing-time reset", async () => {
    const harness = await gateway([zaiConnection()], { ZAI_KEY: bed.plans.zai.apiKey }, []);
    // 2026-11-30 21:00 in Beijing (UTC+8, written without an offset) is 13:00 UTC.
    bed.plans.zai.exhaustedUntilBeijing = "2026-11-30 21:00:00";
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    const subscription = await served(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((Date.parse("2026-11-30T13:00:00Z") - bed.clock.now()) / 1000),
    );
  });

  it("a key the monitor API refuses inside a 200 cools the connection as auth_invalid", async () => {
    const harness = await gateway([zaiConnection()], { ZAI_KEY: "zai-wrong-key-0000.ffff" }, []);
    const outcomes = await harness.server.gateway.refreshUsage();
    expect(outcomes.find((o) => o.connectionId === "zai")?.status).toBe("failed");
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("zai")).toBe(true);
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.rung).toBe("cheap");
    expect(completionHits("/api/coding/paas/v4/chat/completions")).toHaveLength(0);
  });
});
