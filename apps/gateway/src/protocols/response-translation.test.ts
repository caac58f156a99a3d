import { describe, expect, it } from "vitest";
import { toClientResponse } from "./response-translation";
import { extractUsage } from "./usage";

const NOW_MS = Date.parse("2025-09-11T09:16:11Z");

const openAiToolCompletion = {
  id: "chatcmpl-CFk3aT7uLwQ2mYx8NcVbR5pZsGh1K",
  object: "chat.completion",
  created: 1757582230,
  model: "gpt-4o-mini-2024-07-18",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
        refusal: null,
      },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ],
  usage: {
    prompt_tokens: 1210,
    completion_tokens: 20,
    total_tokens: 1230,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
  },
};

const anthropicMessage = {
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    { type: "text", text: "Let me check." },
    { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Oslo" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: {
    input_tokens: 25,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 2000,
    output_tokens: 30,
  },
};

describe("extractUsage", () => {
  it("OpenAI input includes cached input", () => {
    expect(extractUsage("openai", openAiToolCompletion)).toEqual({
      inputTokens: 1210,
      outputTokens: 20,
      cachedInputTokens: 1024,
      cacheWriteTokens: 0,
    });
  });

  it("Anthropic input is the sum of uncached, cache-read and cache-write tokens", () => {
    expect(extractUsage("anthropic", anthropicMessage)).toEqual({
      inputTokens: 2125,
      outputTokens: 30,
      cachedInputTokens: 2000,
      cacheWriteTokens: 100,
    });
  });

  it("is null when the body has no usage", () => {
    expect(extractUsage("openai", { choices: [] })).toBeNull();
    expect(extractUsage("anthropic", "nope")).toBeNull();
  });
});

describe("toClientResponse", () => {
  it("same protocol keeps the body and shows the concrete model", () => {
    const { body, usage } = toClientResponse("anthropic", "anthropic", anthropicMessage, {
      model: "claude-sonnet-4-5",
    });
    expect(body).toEqual({ ...anthropicMessage, model: "claude-sonnet-4-5" });
    expect(usage?.inputTokens).toBe(2125);
  });

  it("OpenAI upstream → Anthropic client: text, tool use, stop reason, cached usage, id", () => {
    const { body, usage } = toClientResponse("openai", "anthropic", openAiToolCompletion, {
      model: "gpt-4o-mini",
    });
    expect(body).toEqual({
      id: "msg_CFk3aT7uLwQ2mYx8NcVbR5pZsGh1K",
      type: "message",
      role: "assistant",
      model: "gpt-4o-mini",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 186,
        output_tokens: 20,
        cache_read_input_tokens: 1024,
        cache_creation_input_tokens: 0,
      },
    });
    expect(usage).toEqual({
      inputTokens: 1210,
      outputTokens: 20,
      cachedInputTokens: 1024,
      cacheWriteTokens: 0,
    });
  });

  it("Anthropic upstream → OpenAI client: content, tool_calls, finish_reason, cached usage, id", () => {
    const { body } = toClientResponse("anthropic", "openai", anthropicMessage, {
      model: "claude-sonnet-4-5",
      nowMs: NOW_MS,
    });
    expect(body).toEqual({
      id: "chatcmpl-01XFDUDYJgAACzvnptvVoYEL",
      object: "chat.completion",
      created: Math.floor(NOW_MS / 1000),
      model: "claude-sonnet-4-5",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Let me check.",
            refusal: null,
            tool_calls: [
              {
                id: "toolu_01",
                type: "function",
                function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
              },
            ],
          },
          logprobs: null,
          finish_reason: "tool_calls",
        },
      ],
      usage: {
        prompt_tokens: 2125,
        completion_tokens: 30,
        total_tokens: 2155,
        prompt_tokens_details: { cached_tokens: 2000 },
      },
    });
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
  ])("stop reason %s ↔ finish_reason %s", (stopReason, finishReason) => {
    const toOpenAi = toClientResponse(
      "anthropic",
      "openai",
      { ...anthropicMessage, stop_reason: stopReason },
      { model: "m" },
    );
    expect((toOpenAi.body.choices as { finish_reason: string }[])[0]!.finish_reason).toBe(
      finishReason,
    );
    const openAi = {
      ...openAiToolCompletion,
      choices: [{ ...openAiToolCompletion.choices[0], finish_reason: finishReason }],
    };
    const back = toClientResponse("openai", "anthropic", openAi, { model: "m" }).body.stop_reason;
    expect(back).toBe(stopReason === "stop_sequence" ? "end_turn" : stopReason);
  });

  it("round trip Anthropic → OpenAI → Anthropic keeps content, stop reason and usage", () => {
    const openAi = toClientResponse("anthropic", "openai", anthropicMessage, {
      model: "m",
      nowMs: NOW_MS,
    }).body;
    const back = toClientResponse("openai", "anthropic", openAi, { model: "m" });
    expect(back.body.content).toEqual(anthropicMessage.content);
    expect(back.body.stop_reason).toBe("tool_use");
    // OpenAI has no cache-write count: those tokens come back as plain input.
    expect(back.usage).toEqual({
      inputTokens: 2125,
      outputTokens: 30,
      cachedInputTokens: 2000,
      cacheWriteTokens: 0,
    });
  });

  it("refuses a body that is not a completion", () => {
    expect(() => toClientResponse("openai", "anthropic", { choices: [] }, { model: "m" })).toThrow(
      /choices\[0\]/,
    );
  });
});
