import { describe, expect, it } from "vitest";
import { anthropicMessagesCodec } from "../anthropic-messages/codec";
import { DEFAULT_ANTHROPIC_MAX_TOKENS } from "../anthropic-messages/encode-request";
import { translateRequest } from "../hub";
import { refusal } from "../test-refusal";
import { openAiChatCodec } from "./codec";

const conversation = {
  model: "auto/thrifty",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture, and the weather in Paris?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
      ],
    },
    {
      role: "assistant",
      content: "Checking.",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
        {
          id: "call_2",
          type: "function",
          function: { name: "get_time", arguments: '{"tz":"CET"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "18°C" },
    { role: "tool", tool_call_id: "call_2", content: "14:00" },
    { role: "user", content: "Thanks. Summarise." },
  ],
  tools: [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Weather by city",
        parameters: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
        },
      },
    },
    {
      type: "function",
      function: {
        name: "get_time",
        parameters: { type: "object", properties: { tz: { type: "string" } } },
      },
    },
  ],
  tool_choice: "required",
  stop: ["END"],
  max_completion_tokens: 300,
  temperature: 0.2,
  top_p: 0.9,
  user: "user-42",
};

const toAnthropic = (body: Record<string, unknown>, stream = false) =>
  translateRequest("openai-chat", "anthropic-messages", body, {
    model: "claude-sonnet-4-5",
    stream,
  });

describe("openai-chat codec, chat client → Anthropic upstream", () => {
  it("translates system, images, tool calls, merged tool results, tools and sampling", () => {
    const { body, dropped } = toAnthropic(conversation, true);
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 300,
      stream: true,
      system: "You are terse.\n\nAnswer in English.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture, and the weather in Paris?" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
            },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_2", name: "get_time", input: { tz: "CET" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "18°C" },
            { type: "tool_result", tool_use_id: "call_2", content: "14:00" },
            { type: "text", text: "Thanks. Summarise." },
          ],
        },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Weather by city",
          input_schema: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          },
        },
        {
          name: "get_time",
          input_schema: { type: "object", properties: { tz: { type: "string" } } },
        },
      ],
      tool_choice: { type: "any" },
      stop_sequences: ["END"],
      temperature: 0.2,
      top_p: 0.9,
      metadata: { user_id: "user-42" },
    });
    // What the hub writes is a Messages request the Anthropic codec itself accepts.
    expect(() => anthropicMessagesCodec.decodeRequest(body)).not.toThrow();
  });

  it("sets the documented default max_tokens when the client sets none", () => {
    const { body } = toAnthropic({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(body.max_tokens).toBe(DEFAULT_ANTHROPIC_MAX_TOKENS);
  });

  it("maps a named tool choice and parallel_tool_calls: false", () => {
    const { body } = toAnthropic({
      ...conversation,
      tool_choice: { type: "function", function: { name: "get_time" } },
      parallel_tool_calls: false,
    });
    expect(body.tool_choice).toEqual({
      type: "tool",
      name: "get_time",
      disable_parallel_tool_use: true,
    });
  });

  it("drops hints that cannot change the answer, and names each one", () => {
    const { body, dropped } = toAnthropic({
      ...conversation,
      seed: 7,
      service_tier: "default",
      prompt_cache_key: "k",
      store: false,
      metadata: { team: "a" },
      stream_options: { include_usage: true },
    });
    expect([...dropped].sort()).toEqual([
      "metadata",
      "prompt_cache_key",
      "seed",
      "service_tier",
      "store",
    ]);
    expect(body).not.toHaveProperty("seed");
    expect(body.metadata).toEqual({ user_id: "user-42" });
  });

  it("translates reasoning_effort into a thinking budget below max_tokens", () => {
    const base = {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      reasoning_effort: "high",
    };
    expect(toAnthropic({ ...base, max_tokens: 64000 }).body.thinking).toEqual({
      type: "enabled",
      budget_tokens: 24576,
    });
    expect(toAnthropic({ ...base, max_tokens: 3000 }).body.thinking).toEqual({
      type: "enabled",
      budget_tokens: 2999,
    });
    // Anthropic forbids thinking with a temperature: the effort is dropped, and said so.
    const withTemperature = toAnthropic({ ...base, max_tokens: 64000, temperature: 0.3 });
    expect(withTemperature.body).not.toHaveProperty("thinking");
    expect(withTemperature.dropped).toEqual(["reasoning_effort"]);
  });

  it("drops the effort where Anthropic would refuse thinking: a forced tool, or mid tool loop", () => {
    const forced = toAnthropic({
      ...conversation,
      reasoning_effort: "low",
      max_completion_tokens: 8000,
      temperature: undefined,
      top_p: undefined,
    });
    expect(forced.body).not.toHaveProperty("thinking");
    expect(forced.dropped).toEqual(["reasoning_effort"]);
    const loop = toAnthropic({
      model: "m",
      max_tokens: 8000,
      reasoning_effort: "low",
      messages: conversation.messages.slice(0, 6),
      tools: conversation.tools,
    });
    expect(loop.body).not.toHaveProperty("thinking");
    const fresh = toAnthropic({
      model: "m",
      max_tokens: 8000,
      reasoning_effort: "low",
      messages: [{ role: "user", content: "Weather?" }],
      tools: conversation.tools,
    });
    expect(fresh.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  it.each([
    ["n", { n: 2 }],
    ["logprobs", { logprobs: true }],
    ["frequency_penalty", { frequency_penalty: 0.5 }],
    [
      "response_format",
      {
        response_format: {
          type: "json_schema",
          json_schema: { name: "x", schema: { type: "object" } },
        },
      },
    ],
    ["tools[0].type", { tools: [{ type: "file_search" }] }],
    ["modalities", { modalities: ["text", "audio"] }],
    ["function_call_mode", { function_call_mode: "x" }],
  ])("refuses %s, naming the field", (field, extra) => {
    const error = refusal(() =>
      toAnthropic({ model: "m", messages: [{ role: "user", content: "hi" }], ...extra }),
    );
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it("names the path and allowed values of an unknown role", () => {
    const error = refusal(() =>
      toAnthropic({
        model: "m",
        messages: [
          { role: "user", content: "a" },
          { role: "robot", content: "x" },
        ],
      }),
    );
    expect(error).toMatchObject({ code: "invalid_field", field: "messages[1].role" });
    expect(error.allowed).toContain("tool");
  });

  it("names the path of a body that is not a chat request", () => {
    const error = refusal(() =>
      openAiChatCodec.decodeRequest({ model: "m", messages: [{ content: "no role" }] }),
    );
    expect(error.field).toBe("messages[0].role");
  });

  it("keeps n > 1 for a chat upstream", () => {
    const ir = openAiChatCodec.decodeRequest({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      n: 3,
    });
    expect(openAiChatCodec.encodeRequest(ir, { model: "gpt", stream: false }).body.n).toBe(3);
  });
});
