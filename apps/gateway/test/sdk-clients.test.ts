import Anthropic from "@anthropic-ai/sdk";
import { claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({
    config: standardConfig(fakes, { server: { apiKeys: ["env:CLIENT_KEY"] } }),
    env: TEST_ENV,
  }),
});
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  const { fakes, harness } = bed;
  const now = harness.clock.now();
  fakes.plan.usage(claudeUsagePayload(10, now + 3_600_000), { endpoint: "claude" });
  await harness.server.gateway.refreshUsage();
  fakes.plan.script(() => ({
    headers: claudeUnifiedHeaders({
      fiveHour: { utilization: 0.1, resetAtSec: Math.floor((now + 3_600_000) / 1000) },
    }),
    stream: { chunks: ["Hello", " from", " the plan"] },
  }));
  fakes.router.script(() => ({ stream: { chunks: ["Hello", " from", " the router"] } }));
  openai = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: TEST_ENV.CLIENT_KEY, maxRetries: 0 });
  // Claude Code and the SDK send the key as x-api-key.
  anthropic = new Anthropic({ baseURL: harness.url, apiKey: TEST_ENV.CLIENT_KEY, maxRetries: 0 });
});
const MODELS = ["auto/subscription", "auto/thrifty", "qwen/qwen3-coder"] as const;

describe("official SDK clients against the gateway", () => {
  for (const model of MODELS) {
    it(`openai v6 non-stream and stream on ${model}`, async () => {
      const { data, response } = await openai.chat.completions
        .create({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 32 })
        .withResponse();
      expect(data.choices[0]!.message.content).toMatch(/^Hello from the (plan|router)$/);
      expect(response.headers.get("x-planfirst-rung")).toBe(
        model === "qwen/qwen3-coder" ? "cheap" : "subscription",
      );
      const stream = await openai.chat.completions.create({
        model,
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 32,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let sawUsage = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? "";
        if (chunk.usage) sawUsage = true;
      }
      expect(text).toMatch(/^Hello from the (plan|router)$/);
      expect(sawUsage).toBe(true);
    });

    it(`@anthropic-ai/sdk non-stream and stream on ${model}`, async () => {
      const message = await anthropic.messages.create({
        model,
        max_tokens: 32,
        messages: [{ role: "user", content: "hi" }],
      });
      const block = message.content[0];
      expect(block?.type === "text" ? block.text : "").toMatch(/^Hello from the (plan|router)$/);
      const stream = anthropic.messages.stream({
        model,
        max_tokens: 32,
        messages: [{ role: "user", content: "hi" }],
      });
      let text = "";
      stream.on("text", (delta) => {
        text += delta;
      });
      const final = await stream.finalMessage();
      expect(text).toMatch(/^Hello from the (plan|router)$/);
      expect(final.stop_reason).toBe("end_turn");
    });
  }

  it("a wrong client key is refused with 401 by both SDKs", async () => {
    const bad = new OpenAI({ baseURL: `${bed.harness.url}/v1`, apiKey: "wrong", maxRetries: 0 });
    await expect(bad.models.list()).rejects.toMatchObject({ status: 401 });
    const badAnthropic = new Anthropic({
      baseURL: bed.harness.url,
      apiKey: "wrong",
      maxRetries: 0,
    });
    await expect(
      badAnthropic.messages.create({
        model: "auto/thrifty",
        max_tokens: 8,
        messages: [{ role: "user", content: "x" }],
      }),
    ).rejects.toMatchObject({ status: 401 });
  });

  it("GET /v1/models lists the auto ids and the configured models", async () => {
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "auto/subscription",
        "auto/thrifty",
        "auto/coding:thrifty",
        "claude-sonnet-4-5",
        "qwen/qwen3-coder",
      ]),
    );
  });
});
