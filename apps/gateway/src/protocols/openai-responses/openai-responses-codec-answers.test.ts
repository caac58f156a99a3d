import { describe, expect, it } from "vitest";
import { translateResponse } from "../hub";
import { openAiResponsesCodec } from "./codec";
import { codexRequest, PATCH } from "./test-codex-request";

describe("openai-responses codec, answers", () => {
  const response = {
    id: "resp_abc",
    object: "response",
    status: "completed",
    model: "gpt-5",
    output: [
      {
        id: "rs_1",
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Thinking" }],
        encrypted_content: "gAAA",
      },
      {
        id: "msg_1",
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Patching.", annotations: [] }],
      },
      {
        id: "ctc_1",
        type: "custom_tool_call",
        status: "completed",
        call_id: "call_7",
        name: "apply_patch",
        input: PATCH,
      },
    ],
    usage: {
      input_tokens: 500,
      input_tokens_details: { cached_tokens: 400 },
      output_tokens: 60,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 560,
    },
  };

  it("Responses upstream → chat client: custom calls, usage with reasoning tokens", () => {
    const { body, usage } = translateResponse("openai-responses", "openai-chat", response, {
      model: "gpt-5",
      nowMs: 0,
    });
    expect(usage).toEqual({
      inputTokens: 500,
      outputTokens: 60,
      cachedInputTokens: 400,
      cacheWriteTokens: 0,
      reasoningTokens: 20,
    });
    expect((body.choices as { message: unknown; finish_reason: string }[])[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        content: "Patching.",
        tool_calls: [
          { id: "call_7", type: "custom", custom: { name: "apply_patch", input: PATCH } },
        ],
      },
    });
  });

  it("an answer from a chat upstream to a Responses client gives a wrapped custom call back as a custom call", () => {
    const request = openAiResponsesCodec.decodeRequest(codexRequest());
    const completion = {
      id: "chatcmpl-9",
      choices: [
        {
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_8",
                type: "function",
                function: { name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    };
    const { body } = translateResponse("openai-chat", "openai-responses", completion, {
      model: "glm-4.6",
      nowMs: 1_757_582_400_000,
      request,
    });
    expect(body).toMatchObject({
      id: "resp_9",
      object: "response",
      status: "completed",
      created_at: 1_757_582_400,
      output: [
        {
          id: "ctc_9_0",
          type: "custom_tool_call",
          status: "completed",
          call_id: "call_8",
          name: "apply_patch",
          input: PATCH,
        },
      ],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    });
    expect(() => openAiResponsesCodec.decodeResponse(body)).not.toThrow();
  });

  it("a max-tokens stop is an incomplete response", () => {
    const { body } = translateResponse(
      "anthropic-messages",
      "openai-responses",
      {
        id: "msg_1",
        content: [{ type: "text", text: "Cut" }],
        stop_reason: "max_tokens",
        usage: { input_tokens: 1, output_tokens: 2 },
      },
      { model: "claude", nowMs: 0 },
    );
    expect(body).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
  });
});
