import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createStreamTranslator, translateRequest, translateResponse } from "../hub";
import { ProtocolError } from "../protocol-error";
import { refusal } from "../test-refusal";
import { decodeChunks, fixtureText, parseEvents, splitBytes } from "../test-streams";
import { geminiCodec } from "./codec";

const chatBody = {
  model: "auto/subscription",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Oslo?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Oslo"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "-3°C" },
  ],
  tools: [
    {
      type: "function",
      function: {
        name: "weather",
        description: "Weather by city",
        parameters: {
          type: "object",
          properties: { city: { type: "string" } },
          additionalProperties: false,
        },
      },
    },
  ],
  tool_choice: { type: "function", function: { name: "weather" } },
  max_tokens: 300,
  temperature: 0.2,
  stop: ["END"],
  reasoning_effort: "low",
};

const toGemini = (from: "openai-chat" | "anthropic-messages", body: unknown, stream = false) =>
  translateRequest(from, "gemini", body, { model: "gemini-2.5-pro", stream });

describe("gemini codec, requests", () => {
  it("writes the Code Assist envelope from a chat request: system, roles, calls, results, tools", () => {
    const { body, dropped } = toGemini("openai-chat", chatBody);
    expect(body).toEqual({
      model: "gemini-2.5-pro",
      request: {
        contents: [
          { role: "user", parts: [{ text: "Weather in Oslo?" }] },
          { role: "model", parts: [{ functionCall: { name: "weather", args: { city: "Oslo" } } }] },
          {
            role: "user",
            parts: [{ functionResponse: { name: "weather", response: { output: "-3°C" } } }],
          },
        ],
        systemInstruction: { role: "user", parts: [{ text: "Be brief." }] },
        tools: [
          {
            functionDeclarations: [
              {
                name: "weather",
                description: "Weather by city",
                parametersJsonSchema: chatBody.tools[0]!.function.parameters,
              },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] } },
        generationConfig: {
          maxOutputTokens: 300,
          temperature: 0.2,
          stopSequences: ["END"],
          thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
        },
      },
    });
    expect(dropped).toEqual([]);
  });

  it("reads an Anthropic request: base64 images inline, error results, top_k, adaptive thinking", () => {
    const { body } = toGemini("anthropic-messages", {
      model: "auto/thrifty",
      max_tokens: 1000,
      system: [{ type: "text", text: "Terse.", cache_control: { type: "ephemeral" } }],
      top_k: 40,
      thinking: { type: "adaptive" },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
            },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "look", input: { q: 1 } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              is_error: true,
              content: "no such file",
            },
          ],
        },
      ],
      tools: [{ name: "look", input_schema: { type: "object" } }],
    });
    const request = body.request as Record<string, unknown>;
    expect(request.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "What is this?" },
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
      { role: "model", parts: [{ functionCall: { name: "look", args: { q: 1 } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "look", response: { error: "no such file" } } }],
      },
    ]);
    expect(request.generationConfig).toEqual({
      maxOutputTokens: 1000,
      topK: 40,
      thinkingConfig: { thinkingBudget: -1, includeThoughts: true },
    });
  });

  it("refuses what Gemini cannot honour instead of dropping it", () => {
    expect(refusal(() => toGemini("openai-chat", { ...chatBody, n: 2 })).field).toBe("n");
    expect(
      refusal(() => toGemini("openai-chat", { ...chatBody, stop: ["a", "b", "c", "d", "e", "f"] }))
        .field,
    ).toBe("stop");
    const byUrl = {
      model: "m",
      messages: [
        {
          role: "user",
          content: [{ type: "image_url", image_url: { url: "https://example.com/cat.jpg" } }],
        },
      ],
    };
    expect(refusal(() => toGemini("openai-chat", byUrl)).field).toBe("messages[0].content[0]");
    const orphan = {
      model: "m",
      messages: [{ role: "tool", tool_call_id: "call_x", content: "1" }],
    };
    expect(refusal(() => toGemini("openai-chat", orphan)).code).toBe("invalid_field");
  });

  it("has no client half", () => {
    expect(() => geminiCodec.decodeRequest({})).toThrow(/upstreams only/);
    expect(geminiCodec.client).toBeNull();
  });
});

describe("gemini codec, answers", () => {
  const whole = {
    response: {
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { text: "Let me see.", thought: true },
              { text: "It is " },
              { text: "cold." },
              { functionCall: { name: "weather", args: { city: "Oslo" } } },
            ],
          },
          finishReason: "STOP",
        },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 30,
        cachedContentTokenCount: 40,
        totalTokenCount: 150,
      },
      modelVersion: "gemini-2.5-pro",
      responseId: "r-1",
    },
    traceId: "trace",
  };

  it("decodes a wrapped answer: thoughts, joined text, calls, usage with thoughts in the output", () => {
    expect(geminiCodec.decodeResponse(whole)).toEqual({
      id: "r-1",
      model: "gemini-2.5-pro",
      content: [
        { type: "reasoning", text: "Let me see." },
        { type: "text", text: "It is cold." },
        {
          type: "tool_call",
          kind: "function",
          id: "call_planfirst_0",
          name: "weather",
          arguments: '{"city":"Oslo"}',
        },
      ],
      finishReason: "tool_calls",
      usage: {
        inputTokens: 100,
        outputTokens: 50,
        cachedInputTokens: 40,
        cacheWriteTokens: 0,
        reasoningTokens: 30,
      },
    });
  });

  it("maps finish reasons and a blocked prompt", () => {
    const finish = (finishReason: string) =>
      geminiCodec.decodeResponse({
        candidates: [{ content: { parts: [{ text: "x" }] }, finishReason }],
      }).finishReason;
    expect(finish("MAX_TOKENS")).toBe("length");
    expect(finish("SAFETY")).toBe("content_filter");
    expect(finish("MALFORMED_FUNCTION_CALL")).toBe("other");
    expect(
      geminiCodec.decodeResponse({ response: { promptFeedback: { blockReason: "SAFETY" } } })
        .finishReason,
    ).toBe("content_filter");
    expect(() => geminiCodec.decodeResponse({ candidates: "no" })).toThrow(ProtocolError);
  });

  it("becomes a chat completion and an Anthropic message", () => {
    const chat = translateResponse("gemini", "openai-chat", whole, {
      model: "gemini-2.5-pro",
      nowMs: 0,
    });
    const choice = (chat.body.choices as Array<Record<string, unknown>>)[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(chat.usage?.outputTokens).toBe(50);
    const anthropic = translateResponse("gemini", "anthropic-messages", whole, {
      model: "gemini-2.5-pro",
      nowMs: 0,
    });
    expect(anthropic.body.stop_reason).toBe("tool_use");
  });
});

describe("gemini codec, streams", () => {
  it("decodes the recorded text stream: reasoning, text, usage, finish", () => {
    const parts = decodeChunks("gemini", [fixtureText("gemini", "text-stream.sse")]);
    expect(parts).toEqual([
      { type: "start", id: "resp-text-1", model: "gemini-2.5-pro" },
      { type: "reasoning-delta", text: "Thinking about Oslo." },
      { type: "reasoning-end" },
      { type: "text-delta", text: "Hello" },
      { type: "text-delta", text: ", wörld." },
      {
        type: "usage",
        usage: {
          inputTokens: 12,
          outputTokens: 10,
          cachedInputTokens: 2,
          cacheWriteTokens: 0,
          reasoningTokens: 6,
        },
      },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("decodes whole function calls into start, delta, end and finishes with tool_calls", () => {
    const parts = decodeChunks("gemini", [fixtureText("gemini", "tool-stream.sse")]);
    expect(parts.filter((p) => p.type.startsWith("tool-call"))).toEqual([
      {
        type: "tool-call-start",
        callIndex: 0,
        id: "call_planfirst_0",
        name: "weather",
        kind: "function",
      },
      { type: "tool-call-delta", callIndex: 0, delta: '{"city":"Oslo"}' },
      { type: "tool-call-end", callIndex: 0 },
      {
        type: "tool-call-start",
        callIndex: 1,
        id: "call_planfirst_1",
        name: "time",
        kind: "function",
      },
      { type: "tool-call-delta", callIndex: 1, delta: '{"tz":"CET"}' },
      { type: "tool-call-end", callIndex: 1 },
    ]);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("decodes the same parts however the bytes are cut", () => {
    const text = fixtureText("gemini", "text-stream.sse");
    const whole = decodeChunks("gemini", [text]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        expect(decodeChunks("gemini", splitBytes(text, cuts))).toEqual(whole);
      }),
    );
  });

  it("ends a body cut before any finishReason with an error, and one cut after it cleanly", () => {
    const text = fixtureText("gemini", "text-stream.sse");
    const firstTwo = text.split("\n\n").slice(0, 2).join("\n\n");
    expect(decodeChunks("gemini", [firstTwo]).at(-1)).toMatchObject({
      type: "error",
      error: { code: "upstream_stream_cut" },
    });
    const noUsage =
      'data: {"response":{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}]}}\n\n';
    expect(decodeChunks("gemini", [noUsage]).at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("passes an in-stream error on as an error part", () => {
    const body =
      'data: {"error":{"code":429,"message":"exhausted","status":"RESOURCE_EXHAUSTED"}}\n\n';
    expect(decodeChunks("gemini", [body])).toEqual([
      {
        type: "error",
        error: { type: "api_error", code: "RESOURCE_EXHAUSTED", message: "exhausted" },
      },
    ]);
  });

  it("translates to a chat stream ending in [DONE] and an Anthropic stream ending in message_stop", () => {
    const text = fixtureText("gemini", "tool-stream.sse");
    const chat = createStreamTranslator("gemini", "openai-chat", {
      model: "gemini-2.5-pro",
      nowMs: 0,
    });
    const chatOut = chat.push(text) + chat.flush();
    expect(parseEvents([chatOut]).at(-1)?.data).toBe("[DONE]");
    expect(chat.usage()?.inputTokens).toBe(30);
    const anthropic = createStreamTranslator("gemini", "anthropic-messages", {
      model: "m",
      nowMs: 0,
    });
    const anthropicOut = anthropic.push(text) + anthropic.flush();
    expect(parseEvents([anthropicOut]).at(-1)?.event).toBe("message_stop");
    expect(anthropicOut).toContain('"stop_reason":"tool_use"');
  });
});
