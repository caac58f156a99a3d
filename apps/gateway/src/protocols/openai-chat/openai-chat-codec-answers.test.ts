import { describe, expect, it } from "vitest";
import { translateResponse } from "../hub";
import { refusal } from "../test-refusal";
import { openAiChatCodec } from "./codec";

describe("openai-chat codec, answers", () => {
  const completion = {
    id: "chatcmpl-abc",
    object: "chat.completion",
    created: 1,
    model: "gpt-4o-mini",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Sure.",
          tool_calls: [
            {
              id: "call_9",
              type: "function",
              function: { name: "get_time", arguments: '{"tz":"UTC"}' },
            },
          ],
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 100,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: 60 },
    },
  };

  it("chat upstream → Anthropic client: text, tool use, stop reason, cached usage, id", () => {
    const { body, usage } = translateResponse("openai-chat", "anthropic-messages", completion, {
      model: "gpt-4o-mini",
      nowMs: 0,
    });
    expect(usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cachedInputTokens: 60,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    expect(body).toEqual({
      id: "msg_abc",
      type: "message",
      role: "assistant",
      model: "gpt-4o-mini",
      content: [
        { type: "text", text: "Sure." },
        { type: "tool_use", id: "call_9", name: "get_time", input: { tz: "UTC" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 40,
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 60,
      },
    });
  });

  it("round-trips an answer through the hub unchanged in meaning", () => {
    const ir = openAiChatCodec.decodeResponse(completion);
    const again = openAiChatCodec.decodeResponse(
      openAiChatCodec.encodeResponse(ir, { model: "gpt-4o-mini", nowMs: 0 }).body,
    );
    expect(again).toEqual(ir);
  });

  it("refuses a body that is not a completion, naming the path", () => {
    const error = refusal(() => openAiChatCodec.decodeResponse({ choices: [] }));
    expect(error.field).toBe("choices");
  });
});
