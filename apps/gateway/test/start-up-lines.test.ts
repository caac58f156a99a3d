import { describe, expect, it } from "vitest";
import { connectionLines } from "../src/server";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);
const minute = 60_000;

describe("start-up lines", () => {
  it("call a plan's quota verified only while its reading is within the configured maxStateAgeMs (Q4)", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes, {
        subscriptionLadder: { rungBudgetUsd: { cheap: 5 }, maxStateAgeMs: 10 * minute },
      }),
      env: TEST_ENV,
    });
    const clock = harness.clock;
    bed.fakes.plan.usage(claudeUsagePayload(30, clock.now() + 120 * minute), {
      endpoint: "claude",
    });
    await harness.server.gateway.refreshUsage();
    const planLine = () =>
      connectionLines(harness.server.gateway).find((line) => line.includes("claude-plan"))!;

    expect(planLine()).toMatch(/subscription\/hard-stop, rung subscription, quota verified/);
    clock.advance(5 * minute);
    expect(planLine()).toMatch(/quota verified \(70% left\)/);
    clock.advance(6 * minute);
    expect(planLine()).toMatch(/quota not verified yet/);
    expect(connectionLines(harness.server.gateway).join("\n")).not.toContain(TEST_ENV.PLAN_TOKEN);
  });
});
