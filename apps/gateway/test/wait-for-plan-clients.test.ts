import Anthropic from "@anthropic-ai/sdk";
import { claudeRateLimited, claudeUnifiedHeaders, type Reply } from "@planfirst/fake-upstream";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { binPath, runCli, tempDir } from "./cli-runner";
import { anthropicText } from "./client-streams";
import { standardConfig, TEST_ENV } from "./fixtures";
import { type Harness, messagesBody, post, type TestClock, useTestBed, waitFor } from "./harness";

// ladder.md §17 with the clients people run: the official SDKs and Claude Code itself, each
// asking to wait with x-planfirst-max-wait, get an ordinary answer from the plan after its reset.

const bed = useTestBed({ plan: "anthropic", router: "openai", pricey: "openai" });
const WAIT = "x-planfirst-max-wait";
const KEYED = { server: { apiKeys: ["env:CLIENT_KEY"] } };
const MODEL = "claude-sonnet-4-5";
const temps: { remove(): void }[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.remove();
});

/** The plan is back: a fresh 5 h window and an ordinary answer (`stream` for streamed requests). */
function planBack(harness: Harness, text: string): Reply {
  return {
    headers: claudeUnifiedHeaders({
      fiveHour: { utilization: 0.01, resetAtSec: Math.floor(harness.clock.now() / 1000) + 18_000 },
    }),
    body: {
      id: "msg_01WaitedForThePlan",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 4 },
    },
  };
}

function planBackStream(harness: Harness, text: string): Reply {
  const { headers } = planBack(harness, text);
  return { headers, stream: { chunks: [text] } };
}

/** The Claude plan answers its 5 h window spent, back in `inMs` (one upstream request). */
async function exhaustPlan(harness: Harness, inMs: number): Promise<number> {
  const resetMs = harness.clock.now() + inMs;
  bed.fakes.plan.script([
    claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: Math.ceil(inMs / 1000) }),
  ]);
  const refused = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"), {
    [WAIT]: "0",
    "x-api-key": TEST_ENV.CLIENT_KEY,
  });
  expect(refused.status).toBe(429);
  await refused.text();
  return resetMs;
}

async function untilWaiting(harness: Harness, count: number) {
  await waitFor(
    () =>
      harness.server.gateway.context.dispatcher.waiting
        .rooms()
        .some((room) => room.connectionId === "claude-plan" && room.waiting === count),
    { what: `${count} requests waiting for the plan` },
  );
}

/** Streams whose headers the gateway sent while they still waited (WAIT6). */
function heldStreams(harness: Harness): number {
  return harness.logs.filter((line) => line.includes("held stream: headers sent")).length;
}

function config() {
  return standardConfig(bed.fakes, {
    ...KEYED,
    subscriptionLadder: { rungBudgetUsd: { cheap: 5 }, heldStreamKeepAliveMs: 20 },
  });
}

describe("clients waiting for the plan (ladder.md §17)", () => {
  it("WAIT4/WAIT6: the openai SDK gets an ordinary answer after a wait, whole and streamed (held past 10 s)", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const openai = new OpenAI({
      baseURL: `${harness.url}/v1`,
      apiKey: TEST_ENV.CLIENT_KEY,
      maxRetries: 0,
      defaultHeaders: { [WAIT]: "60" },
    });
    let resetMs = await exhaustPlan(harness, 5_000);
    bed.fakes.plan.script((request) =>
      request.stream
        ? planBackStream(harness, "back from the plan")
        : planBack(harness, "back from the plan"),
    );
    const whole = openai.chat.completions
      .create({ model: "auto/subscription", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    await untilWaiting(harness, 1);
    harness.clock.set(resetMs + 250);
    const { data, response } = await whole;
    expect(data.choices[0]!.message.content).toBe("back from the plan");
    expect(Number(response.headers.get("x-planfirst-waited-ms"))).toBeGreaterThanOrEqual(5_250);

    resetMs = await exhaustPlan(harness, 30_000);
    bed.fakes.plan.script(() => planBackStream(harness, "streamed from the plan"));
    const streaming = openai.chat.completions.create({
      model: "auto/subscription",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    await untilWaiting(harness, 1);
    harness.clock.advance(10_000);
    const stream = await streaming;
    expect(heldStreams(harness)).toBe(1);
    harness.clock.set(resetMs + 250);
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("streamed from the plan");
  });

  it("WAIT4/WAIT6: @anthropic-ai/sdk gets an ordinary answer after a wait, whole and streamed (pings before message_start)", async () => {
    const harness = await bed.start({ config: config(), env: TEST_ENV });
    const anthropic = new Anthropic({
      baseURL: harness.url,
      apiKey: TEST_ENV.CLIENT_KEY,
      maxRetries: 0,
      defaultHeaders: { [WAIT]: "60" },
    });
    let resetMs = await exhaustPlan(harness, 5_000);
    bed.fakes.plan.script((request) =>
      request.stream
        ? planBackStream(harness, "back from the plan")
        : planBack(harness, "back from the plan"),
    );
    const whole = anthropic.messages.create({
      model: "auto/subscription",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
    });
    await untilWaiting(harness, 1);
    harness.clock.set(resetMs + 250);
    const message = await whole;
    expect(message.content[0]).toMatchObject({ type: "text", text: "back from the plan" });

    resetMs = await exhaustPlan(harness, 30_000);
    bed.fakes.plan.script(() => planBackStream(harness, "back from the plan"));
    const stream = anthropic.messages.stream({
      model: "auto/subscription",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    await untilWaiting(harness, 1);
    harness.clock.advance(10_000);
    await waitFor(() => heldStreams(harness) === 1, { what: "the held stream's headers" });
    harness.clock.set(resetMs + 250);
    const final = await stream.finalMessage();
    expect(text).toBe("back from the plan");
    expect(final.stop_reason).toBe("end_turn");
  });

  it("WAIT6: Claude Code streams through a plan that runs out under its request: held, kept alive, served after the reset", async () => {
    // Claude Code runs on the machine's clock, so this test does too: the reset is 2–3 s away
    // and the held stream's headers go after 1 s, so the wait crosses both in a few seconds.
    const clock: TestClock = {
      now: () => Date.now(),
      advance() {
        throw new Error("real time");
      },
      set() {
        throw new Error("real time");
      },
    };
    const harness = await bed.start({
      config: standardConfig(bed.fakes, {
        ...KEYED,
        subscriptionLadder: {
          rungBudgetUsd: { cheap: 5 },
          heldStreamHeadersAfterMs: 1_000,
          heldStreamKeepAliveMs: 250,
        },
      }),
      env: TEST_ENV,
      clock,
    });
    let resetMs = 0;
    bed.fakes.plan.script(() => {
      if (resetMs === 0) {
        resetMs = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
        return claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: 3 });
      }
      return {
        ...anthropicText(MODEL, "pong after the reset"),
        headers: {
          ...anthropicText(MODEL, "").headers,
          ...planBack(harness, "").headers,
        },
      };
    });
    const home = tempDir("planfirst-claude-home-");
    const cwd = tempDir("planfirst-claude-cwd-");
    temps.push(home, cwd);
    const run = await runCli(
      binPath("claude"),
      ["-p", "say pong", "--model", "auto/subscription"],
      {
        cwd: cwd.path,
        timeoutMs: 60_000,
        env: {
          HOME: home.path,
          ANTHROPIC_BASE_URL: harness.url,
          ANTHROPIC_API_KEY: TEST_ENV.CLIENT_KEY,
          ANTHROPIC_CUSTOM_HEADERS: `${WAIT}: 30`,
          ANTHROPIC_SMALL_FAST_MODEL: "auto/subscription",
          ANTHROPIC_DEFAULT_HAIKU_MODEL: "auto/subscription",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
        },
      },
    );
    expect(run.stdout).toContain("pong after the reset");
    const hits = bed.fakes.plan.completionHits();
    // The first request met the spent window; the plan saw nothing more until its reset.
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits.slice(1).every((hit) => hit.at >= resetMs)).toBe(true);
    const held = heldStreams(harness);
    expect(held).toBeGreaterThanOrEqual(1);
    // Held rather than refused: Claude Code never saw a 429 (it would have retried on its own).
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).not.toContain('outcome="exhausted"');
    console.log(
      `Claude Code: ${hits.length} plan requests, the second ${hits[1]!.at - resetMs} ms after the reset; ` +
        `${held} held stream(s); stdout ${JSON.stringify(run.stdout.trim())}`,
    );
  }, 90_000);
});
