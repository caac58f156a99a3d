import { claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

// A plan that refuses the client program rather than the request or the connection
// (quota-signals.md §15): the Claude login's 400 "only authorized for use with Claude Code". The
// request falls through, nothing is cooled, and the same login serves the next request.

const bed = useTestBed(STANDARD_FAKES);
const hour = 3_600_000;

const CLAUDE_CODE_ONLY_400 = {
  status: 400,
  body: {
    type: "error",
    error: {
      type: "invalid_request_error",
      message:
        "This credential is only authorized for use with Claude Code and cannot be used for other API requests.",
    },
    request_id: "req_011CTzhLPMYfm1fcc5e5uq9f",
  },
};

function planHeaders(nowMs: number) {
  return claudeUnifiedHeaders({
    fiveHour: { utilization: 0.2, resetAtSec: Math.floor((nowMs + 4 * hour) / 1000) },
    sevenDay: { utilization: 0.3, resetAtSec: Math.floor((nowMs + 72 * hour) / 1000) },
    overageStatus: "rejected",
  });
}

describe("a Claude login that refuses a client that is not Claude Code", () => {
  it("auto/thrifty falls through to the next rung, the login is not cooled and serves the next request", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.script([CLAUDE_CODE_ONLY_400]);
    const thrifty = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(thrifty.status, await thrifty.clone().text()).toBe(200);
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("cheap");
    const { cooldowns } = harness.server.gateway.deps;
    expect(cooldowns.isCoolingDown("claude-plan")).toBe(false);

    bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now()) }));
    const next = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
    expect(next.status).toBe(200);
    expect(next.headers.get("x-planfirst-connection")).toBe("claude-plan");
  });

  it("auto/subscription answers 403 client_refused with the reason, never the plan's 400 as the client's fault", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.script(() => ({ headers: planHeaders(harness.clock.now()) }));
    expect(
      (await post(harness.url, "/v1/messages", messagesBody("auto/subscription"))).status,
    ).toBe(200);
    bed.fakes.plan.script([CLAUDE_CODE_ONLY_400]);
    const refused = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    const body = (await refused.json()) as { error: { type: string; message: string } };
    expect(refused.status).toBe(403);
    expect(body.error.type).toBe("permission_error");
    expect(body.error.message).toContain("the Claude login serves Claude Code only");
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("claude-plan")).toBe(false);
  });
});
