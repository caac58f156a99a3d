import { claudeRateLimited } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post } from "./harness";
import {
  logLines,
  planBack,
  recordOf,
  streamText,
  untilWaiting,
  useWaitForPlanBed,
  WAIT,
} from "./wait-for-plan-helpers";

// ladder.md §17, held streams (WAIT6): a streaming request that waits gets its headers and
// keep-alives, then the plan's stream after the reset, or the protocol's error frame.

const { bed, config, exhaustPlan } = useWaitForPlanBed();

describe("waiting for the plan (ladder.md §17)", () => {
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
