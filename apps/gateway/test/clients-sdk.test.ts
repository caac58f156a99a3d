import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { useTestBed } from "./harness";

// The Vercel AI SDK and LangChain, unchanged, against the gateway in front of fakes: each client
// API served from an upstream of another protocol (the fake plan speaks Messages, the router
// chat completions). The AI SDK's default `openai(model)` speaks Responses: before the hub was
// wired it was a 404.

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({
    config: standardConfig(fakes, { server: { apiKeys: ["env:CLIENT_KEY"] } }),
    env: TEST_ENV,
  }),
});
const KEY = TEST_ENV.CLIENT_KEY;
const CHEAP = "qwen/qwen3-coder";
const PLAN = "claude-sonnet-4-5";

describe("Vercel AI SDK", () => {
  it("default openai(model) (Responses): generateText and streamText from a chat upstream", async () => {
    const openai = createOpenAI({ apiKey: KEY, baseURL: `${bed.harness.url}/v1` });
    const whole = await generateText({ model: openai(CHEAP), prompt: "hello" });
    expect(whole.text).toBe("ok");
    expect(whole.usage.inputTokens).toBe(12);
    bed.fakes.router.script([{ stream: { chunks: ["Hel", "lo"] } }]);
    const streamed = streamText({ model: openai(CHEAP), prompt: "hello" });
    expect(await streamed.text).toBe("Hello");
    expect(await streamed.finishReason).toBe("stop");
  });

  it("openai.chat(model): chat completions served by the Messages plan", async () => {
    const openai = createOpenAI({ apiKey: KEY, baseURL: `${bed.harness.url}/v1` });
    const whole = await generateText({ model: openai.chat(PLAN), prompt: "hello" });
    expect(whole.text).toBe("ok");
    bed.fakes.plan.script([{ stream: { chunks: ["a", "b", "c"] } }]);
    const streamed = streamText({ model: openai.chat(PLAN), prompt: "hello" });
    expect(await streamed.text).toBe("abc");
  });

  it("@ai-sdk/anthropic: Messages served by a chat upstream", async () => {
    const anthropic = createAnthropic({ apiKey: KEY, baseURL: `${bed.harness.url}/v1` });
    const whole = await generateText({ model: anthropic(CHEAP), prompt: "hello" });
    expect(whole.text).toBe("ok");
    bed.fakes.router.script([{ stream: { chunks: ["x", "y"] } }]);
    const streamed = streamText({ model: anthropic(CHEAP), prompt: "hello" });
    expect(await streamed.text).toBe("xy");
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
  });
});

describe("LangChain", () => {
  it("@langchain/openai ChatOpenAI on chat completions, and with useResponsesApi, from the plan", async () => {
    const chat = new ChatOpenAI({
      model: PLAN,
      apiKey: KEY,
      configuration: { baseURL: `${bed.harness.url}/v1` },
      maxRetries: 0,
    });
    expect((await chat.invoke("hello")).content).toBe("ok");
    const responses = new ChatOpenAI({
      model: PLAN,
      apiKey: KEY,
      configuration: { baseURL: `${bed.harness.url}/v1` },
      useResponsesApi: true,
      maxRetries: 0,
    });
    const answer = await responses.invoke("hello");
    expect(answer.text).toBe("ok");
  });

  it("@langchain/anthropic ChatAnthropic from a chat upstream, whole and streamed", async () => {
    const chat = new ChatAnthropic({
      model: CHEAP,
      apiKey: KEY,
      anthropicApiUrl: bed.harness.url,
      maxRetries: 0,
    });
    expect((await chat.invoke("hello")).content).toBe("ok");
    bed.fakes.router.script([{ stream: { chunks: ["s", "t"] } }]);
    let text = "";
    for await (const chunk of await chat.stream("hello")) text += chunk.text;
    expect(text).toBe("st");
  });
});
