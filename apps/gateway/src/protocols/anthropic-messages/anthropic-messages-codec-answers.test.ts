import { describe, expect, it } from "vitest";
import { translateResponse } from "../hub";
import { anthropicMessagesCodec } from "./codec";

describe("anthropic-messages codec, answers", () => {
  const message = {
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "thinking", thinking: "Hmm.", signature: "sig" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: {
      input_tokens: 10,
      output_tokens: 30,
      cache_read_input_tokens: 200,
      cache_creation_input_tokens: 5,
    },
  };

  it("Anthropic upstream → chat client: content, tool_calls, finish_reason, cached usage, id", () => {
    const { body, usage } = translateResponse("anthropic-messages", "openai-chat", message, {
      model: "claude-sonnet-4-5",
      nowMs: 1_700_000_000_000,
    });
    expect(usage).toEqual({
      inputTokens: 215,
      outputTokens: 30,
      cachedInputTokens: 200,
      cacheWriteTokens: 5,
      reasoningTokens: 0,
    });
    expect(body).toEqual({
      id: "chatcmpl-01XFDUDYJgAACzvnptvVoYEL",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "claude-sonnet-4-5",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Checking.",
            refusal: null,
            reasoning_content: "Hmm.",
            tool_calls: [
              {
                id: "toolu_1",
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
        prompt_tokens: 215,
        completion_tokens: 30,
        total_tokens: 245,
        prompt_tokens_details: { cached_tokens: 200 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it("round trip Anthropic → hub → Anthropic keeps content, stop reason and usage", () => {
    const ir = anthropicMessagesCodec.decodeResponse(message);
    const { body } = anthropicMessagesCodec.encodeResponse(ir, {
      model: "claude-sonnet-4-5",
      nowMs: 0,
    });
    expect(body).toEqual(message);
  });

  it("writes no unsigned thinking for an answer from another protocol, and says so", () => {
    const { body, dropped } = translateResponse(
      "openai-chat",
      "anthropic-messages",
      {
        id: "c",
        choices: [
          {
            message: { role: "assistant", content: "Hi", reasoning_content: "think" },
            finish_reason: "stop",
          },
        ],
      },
      { model: "deepseek-reasoner", nowMs: 0 },
    );
    expect(body.content).toEqual([{ type: "text", text: "Hi" }]);
    expect(dropped).toEqual(["reasoning"]);
  });
});
