import { describe, expect, it } from "vitest";
import { httpOfCode } from "../app/on-error";
import { ProtocolError } from "./protocol-error";
import { DEFAULT_ANTHROPIC_MAX_TOKENS, toUpstreamRequest } from "./request-translation";

const toAnthropic = (body: Record<string, unknown>, stream = false) =>
  toUpstreamRequest("openai", "anthropic", body, { model: "claude-sonnet-4-5", stream });
const toOpenAi = (body: Record<string, unknown>, stream = false) =>
  toUpstreamRequest("anthropic", "openai", body, { model: "gpt-4o-mini", stream });

const openAiConversation = {
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

describe("toUpstreamRequest, same protocol", () => {
  it("replaces the model and keeps everything else", () => {
    const body = { model: "auto/subscription", messages: [], temperature: 1 };
    expect(
      toUpstreamRequest("anthropic", "anthropic", body, {
        model: "claude-opus-4-1",
        stream: false,
      }),
    ).toEqual({
      model: "claude-opus-4-1",
      messages: [],
      temperature: 1,
    });
    expect(body.model).toBe("auto/subscription");
  });

  it("asks an OpenAI upstream stream for usage", () => {
    const out = toUpstreamRequest(
      "openai",
      "openai",
      { model: "x", stream: true, messages: [] },
      { model: "gpt", stream: true },
    );
    expect(out.stream_options).toEqual({ include_usage: true });
  });
});

describe("toUpstreamRequest, OpenAI client → Anthropic upstream", () => {
  it("translates system, images, tool calls, merged tool results, tools and sampling", () => {
    const out = toAnthropic(openAiConversation, true);
    expect(out).toEqual({
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
  });

  it("sets the documented default max_tokens when the client sets none", () => {
    const out = toAnthropic({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(out.max_tokens).toBe(DEFAULT_ANTHROPIC_MAX_TOKENS);
    expect(toAnthropic({ model: "m", max_tokens: 55, messages: [] }).max_tokens).toBe(55);
  });

  it("maps a named tool choice and parallel_tool_calls: false", () => {
    const out = toAnthropic({
      model: "m",
      messages: [],
      tools: openAiConversation.tools,
      tool_choice: { type: "function", function: { name: "get_time" } },
      parallel_tool_calls: false,
    });
    expect(out.tool_choice).toEqual({
      type: "tool",
      name: "get_time",
      disable_parallel_tool_use: true,
    });
  });

  it("drops fields that cannot change the answer", () => {
    const out = toAnthropic({
      model: "m",
      messages: [],
      stream_options: { include_usage: true },
      seed: 1,
      store: false,
      n: 1,
      presence_penalty: 0,
    });
    expect(Object.keys(out).sort()).toEqual(["max_tokens", "messages", "model"]);
  });

  it("refuses n > 1 with unsupported_field naming n", () => {
    const error = captureError(() => toAnthropic({ model: "m", messages: [], n: 2 }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: "unsupported_field", field: "n" });
    // The status is the onError table's: a refused field is the client's 400, never a 5xx.
    expect(httpOfCode((error as ProtocolError).code).status).toBe(400);
  });

  it.each([
    ["logprobs", { logprobs: true }],
    ["response_format", { response_format: { type: "json_object" } }],
    ["frequency_penalty", { frequency_penalty: 0.5 }],
    ["reasoning_effort", { reasoning_effort: "high" }],
    [
      "messages[0].content[0].type",
      { messages: [{ role: "user", content: [{ type: "input_audio" }] }] },
    ],
  ])("refuses %s, which would change the answer", (field, extra) => {
    const error = captureError(() => toAnthropic({ model: "m", messages: [], ...extra }));
    expect(error).toMatchObject({ code: "unsupported_field", field });
  });

  it("names the path and allowed values of an unknown role", () => {
    const error = captureError(() =>
      toAnthropic({ model: "m", messages: [{ role: "robot", content: "x" }] }),
    );
    expect(error).toMatchObject({ code: "invalid_field", field: "messages[0].role" });
    expect((error as ProtocolError).allowed).toContain("tool");
  });
});

describe("toUpstreamRequest, Anthropic client → OpenAI upstream", () => {
  it("translates system blocks, images, tool use and tool results", () => {
    const out = toOpenAi(
      {
        model: "auto/thrifty",
        max_tokens: 1024,
        system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Weather?" },
              {
                type: "image",
                source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" },
              },
            ],
          },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "…", signature: "sig" },
              { type: "text", text: "Looking." },
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
            ],
          },
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "toolu_1",
                content: [{ type: "text", text: "-3°C" }],
              },
              { type: "text", text: "And tomorrow?" },
            ],
          },
        ],
        tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object" } }],
        tool_choice: { type: "auto", disable_parallel_tool_use: true },
        stop_sequences: ["###"],
        temperature: 0.5,
        metadata: { user_id: "u-7" },
      },
      true,
    );
    expect(out).toEqual({
      model: "gpt-4o-mini",
      max_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather?" },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
          ],
        },
        {
          role: "assistant",
          content: "Looking.",
          tool_calls: [
            {
              id: "toolu_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "-3°C" },
        { role: "user", content: "And tomorrow?" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: "Weather", parameters: { type: "object" } },
        },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
      stop: ["###"],
      temperature: 0.5,
      user: "u-7",
    });
  });

  it.each([
    ["top_k", { top_k: 5 }],
    ["thinking", { thinking: { type: "enabled", budget_tokens: 2048 } }],
    ["tools[0].type", { tools: [{ type: "web_search_20250305", name: "web_search" }] }],
  ])("refuses %s, which would change the answer", (field, extra) => {
    const error = captureError(() =>
      toOpenAi({ model: "m", max_tokens: 10, messages: [], ...extra }),
    );
    expect(error).toMatchObject({ code: "unsupported_field", field });
  });
});

describe("round trips", () => {
  it("OpenAI → Anthropic → OpenAI keeps the conversation", () => {
    const anthropic = toAnthropic(openAiConversation);
    const back = toUpstreamRequest("anthropic", "openai", anthropic, {
      model: "gpt-4o-mini",
      stream: false,
    });
    expect(back.messages).toEqual([
      { role: "system", content: "You are terse.\n\nAnswer in English." },
      openAiConversation.messages[2],
      openAiConversation.messages[3],
      openAiConversation.messages[4],
      openAiConversation.messages[5],
      openAiConversation.messages[6],
    ]);
    expect(back).toMatchObject({
      tools: openAiConversation.tools,
      tool_choice: "required",
      stop: ["END"],
      max_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      user: "user-42",
    });
  });

  it("Anthropic → OpenAI → Anthropic keeps the conversation", () => {
    const anthropicBody = {
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      system: "Be kind.",
      messages: [
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_9", name: "lookup", input: { q: "x" } }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "found" }],
        },
      ],
      tools: [
        { name: "lookup", input_schema: { type: "object", properties: { q: { type: "string" } } } },
      ],
      tool_choice: { type: "tool", name: "lookup" },
      stop_sequences: ["STOP"],
    };
    const openAi = toOpenAi(anthropicBody);
    const back = toUpstreamRequest("openai", "anthropic", openAi, {
      model: "claude-sonnet-4-5",
      stream: false,
    });
    expect(back).toEqual({
      ...anthropicBody,
      messages: [
        { role: "user", content: [{ type: "text", text: "Hi" }] },
        anthropicBody.messages[1],
        anthropicBody.messages[2],
      ],
    });
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
