import { claudeRateLimited, claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);
const hour = 3_600_000;

/**
 * The standard ladder with the Claude login configured as `provider: anthropic, authType: oauth`
 * (the id some configs use for it) and only the bundled catalog, which says the same of it as of
 * `claude/oauth`: a plan whose overage is unknown until its answers say.
 */
function anthropicLogin() {
  const config = standardConfig(bed.fakes, { catalog: { connections: [] } });
  const [plan, ...rest] = config.connections ?? [];
  return { ...config, connections: [{ ...plan!, provider: "anthropic" }, ...rest] };
}

describe("a Claude login under the provider id anthropic reads its answers as a Claude login (quota-signals.md §2a)", () => {
  it("E2/SUB2: answers saying extra usage is off admit it to auto/subscription, as under the id claude", async () => {
    const harness = await bed.start({ config: anthropicLogin(), env: TEST_ENV });
    const nowSec = Math.floor(harness.clock.now() / 1000);
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.2, resetAtSec: nowSec + 4 * 3600 },
        sevenDay: { utilization: 0.3, resetAtSec: nowSec + 3 * 86_400 },
        overageStatus: "rejected",
      }),
    }));
    const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-connection")).toBe("claude-plan");

    const strict = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    expect(strict.status).toBe(200);
    expect(strict.headers.get("x-planfirst-rung")).toBe("subscription");
    const state = harness.server.gateway.deps.quotaCache.get("anthropic", "claude-plan");
    expect(state?.windows.find((w) => w.windowId === "5h")?.remainingPercent).toBe(80);
  });

  it("a 429 with the unified headers records both plan windows: 5 h spent until its reset, 7 d at 41 % remaining", async () => {
    const harness = await bed.start({ config: anthropicLogin(), env: TEST_ENV });
    const resetAtSec = Math.floor((harness.clock.now() + 2 * hour) / 1000);
    bed.fakes.plan.script([claudeRateLimited({ resetAtSec, retryAfterSec: 7200 })]);
    const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("cheap");

    const state = harness.server.gateway.deps.quotaCache.get("anthropic", "claude-plan");
    const windows = new Map(state?.windows.map((w) => [w.windowId, w]));
    expect(windows.get("7d")).toMatchObject({ remainingPercent: 41, windowSeconds: 604_800 });
    expect(windows.get("5h")).toMatchObject({
      remainingPercent: 0,
      resetAt: new Date(resetAtSec * 1000).toISOString(),
      windowSeconds: 18_000,
    });
  });
});
