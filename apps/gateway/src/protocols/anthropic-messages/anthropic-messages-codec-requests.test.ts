import { describe, expect, it } from "vitest";
import { translateRequest } from "../hub";
import { openAiChatCodec } from "../openai-chat/codec";
import { openAiResponsesCodec } from "../openai-responses/codec";
import { refusal } from "../test-refusal";
import { anthropicMessagesCodec } from "./codec";

/** A request in the shape Claude Code sends (2.x, with thinking, effort and context management). */
function claudeCodeRequest(thinking: Record<string, unknown>): Record<string, unknown> {
  return {
    model: "claude-sonnet-4-5-20250929",
    max_tokens: 32000,
    stream: true,
    system: [
      {
        type: "text",
        text: "You are a coding assistant in a terminal client.",
        cache_control: { type: "ephemeral" },
      },
      {
        type: "text",
        text: "Help the user with the repository in the working directory.",
        cache_control: { type: "ephemeral" },
      },
    ],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>Today's date is 2026-12-01.</system-reminder>" },
          {
            type: "text",
            text: "Fix the failing test in sum.test.ts",
            cache_control: { type: "ephemeral" },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking: "I should read the test first.",
            signature: "EqQBCkYIBxgCKkDpZ3b9",
          },
          {
            type: "redacted_thinking",
            data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
          },
          {
            type: "tool_use",
            id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
            name: "Read",
            input: { file_path: "/repo/src/sum.test.ts" },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
            content: [
              { type: "text", text: "1\texpect(sum(1, 2)).toBe(4);" },
              {
                type: "image",
                source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
              },
            ],
            cache_control: { type: "ephemeral" },
          },
        ],
      },
      { role: "system", content: "The user switched to plan mode." },
      { role: "user", content: "Go on." },
    ],
    tools: [
      {
        name: "Read",
        description: "Reads a file from the local filesystem.",
        input_schema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { file_path: { type: "string" } },
          required: ["file_path"],
          additionalProperties: false,
        },
        cache_control: { type: "ephemeral" },
      },
    ],
    metadata: { user_id: "user_2f1c_account_9a7e_session_55d0" },
    thinking,
    output_config: { effort: "high" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  };
}

describe("anthropic-messages codec, Claude Code's requests", () => {
  it.each([
    ["adaptive", { type: "adaptive" }],
    ["a budget", { type: "enabled", budget_tokens: 31999 }],
  ])("go to a chat upstream with thinking %s, without a refusal", (_label, thinking) => {
    const { body, dropped } = translateRequest(
      "anthropic-messages",
      "openai-chat",
      claudeCodeRequest(thinking),
      { model: "gpt-5", stream: true },
    );
    expect(body.reasoning_effort).toBe("high");
    expect(body.messages).toEqual([
      {
        role: "system",
        content:
          "You are a coding assistant in a terminal client.\n\nHelp the user with the repository in the working directory.",
      },
      {
        role: "user",
        content:
          "<system-reminder>Today's date is 2026-12-01.</system-reminder>Fix the failing test in sum.test.ts",
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
            type: "function",
            function: { name: "Read", arguments: '{"file_path":"/repo/src/sum.test.ts"}' },
          },
        ],
      },
      {
        role: "tool",
        tool_call_id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
        content: "1\texpect(sum(1, 2)).toBe(4);",
      },
      {
        role: "user",
        content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }],
      },
      { role: "system", content: "The user switched to plan mode." },
      { role: "user", content: "Go on." },
    ]);
    expect(body.user).toBe("user_2f1c_account_9a7e_session_55d0");
    expect(body.stream_options).toEqual({ include_usage: true });
    expect([...dropped].sort()).toEqual(["cache_control", "context_management", "thinking"]);
    expect(() => openAiChatCodec.decodeRequest(body)).not.toThrow();
  });

  it("goes to a Responses upstream with effort, instructions and a developer message", () => {
    const { body, dropped } = translateRequest(
      "anthropic-messages",
      "openai-responses",
      claudeCodeRequest({ type: "adaptive" }),
      { model: "gpt-5-codex", stream: true },
    );
    expect(body.reasoning).toEqual({ effort: "high" });
    expect(body.instructions).toContain("You are a coding assistant in a terminal client");
    expect(body.store).toBe(false);
    expect(body.input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: "<system-reminder>Today's date is 2026-12-01.</system-reminder>",
          },
          { type: "input_text", text: "Fix the failing test in sum.test.ts" },
        ],
      },
      {
        type: "function_call",
        call_id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
        name: "Read",
        arguments: '{"file_path":"/repo/src/sum.test.ts"}',
      },
      {
        type: "function_call_output",
        call_id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
        output: "1\texpect(sum(1, 2)).toBe(4);",
      },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        ],
      },
      {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: "The user switched to plan mode." }],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Go on." }] },
    ]);
    expect(body.tools).toEqual([
      {
        type: "function",
        name: "Read",
        description: "Reads a file from the local filesystem.",
        parameters:
          claudeCodeRequest({}).tools &&
          (claudeCodeRequest({}).tools as { input_schema: unknown }[])[0]?.input_schema,
        strict: false,
      },
    ]);
    expect([...dropped].sort()).toEqual(["cache_control", "context_management", "thinking"]);
    expect(() => openAiResponsesCodec.decodeRequest(body)).not.toThrow();
  });

  it("a thinking budget alone becomes an effort by its size", () => {
    const request = {
      model: "m",
      max_tokens: 8000,
      messages: [{ role: "user", content: "hi" }],
      thinking: { type: "enabled", budget_tokens: 2048 },
    };
    expect(
      translateRequest("anthropic-messages", "openai-chat", request, {
        model: "o4-mini",
        stream: false,
      }).body.reasoning_effort,
    ).toBe("low");
    const big = { ...request, thinking: { type: "enabled", budget_tokens: 10000 } };
    expect(
      translateRequest("anthropic-messages", "openai-chat", big, {
        model: "o4-mini",
        stream: false,
      }).body.reasoning_effort,
    ).toBe("medium");
  });

  it.each([
    ["top_k", { top_k: 5 }],
    ["tools[0].type", { tools: [{ type: "web_search_20250305", name: "web_search" }] }],
    ["mcp_servers", { mcp_servers: [{ type: "url", url: "https://example.com" }] }],
  ])("refuses %s on the way to a chat upstream, naming the field", (field, extra) => {
    const error = refusal(() =>
      translateRequest(
        "anthropic-messages",
        "openai-chat",
        { model: "m", max_tokens: 10, messages: [], ...extra },
        { model: "gpt", stream: false },
      ),
    );
    expect(error.field).toBe(field);
  });

  it("carries output_config.format to a chat upstream as a JSON schema response format", () => {
    const request = {
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
    };
    const { body } = translateRequest("anthropic-messages", "openai-chat", request, {
      model: "gpt",
      stream: false,
    });
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object" } },
    });
  });

  it("names the path of a server tool block in the history", () => {
    const error = refusal(() =>
      anthropicMessagesCodec.decodeRequest({
        model: "m",
        max_tokens: 10,
        messages: [
          {
            role: "assistant",
            content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }],
          },
        ],
      }),
    );
    expect(error.field).toBe("messages[0].content[0].type");
  });
});
