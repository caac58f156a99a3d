import { describe, expect, it } from "vitest";
import { anthropicMessagesCodec } from "../anthropic-messages/codec";
import { translateRequest } from "../hub";
import { openAiChatCodec } from "../openai-chat/codec";
import { refusal } from "../test-refusal";
import { openAiResponsesCodec } from "./codec";
import { codexRequest, GRAMMAR, PATCH } from "./test-codex-request";

describe("openai-responses codec, Codex's requests", () => {
  it("go to an Anthropic upstream: custom tools as functions, calls and results kept, hints dropped and named", () => {
    const { body, dropped } = translateRequest(
      "openai-responses",
      "anthropic-messages",
      codexRequest({ max_output_tokens: 16000 }),
      { model: "claude-sonnet-4-5", stream: true },
    );
    expect(body.system).toBe(
      "You are a coding agent in a terminal client; follow the repository's conventions.\n\n<permissions instructions>workspace-write</permissions instructions>",
    );
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          {
            type: "text",
            text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
          },
          { type: "text", text: "Read the port from PORT" },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "call_1", name: "shell", input: { command: ["rg", "port"] } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_1",
            content: "src/app.ts:1:const port = 3000;",
          },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "call_2", name: "apply_patch", input: { input: PATCH } }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_2", content: "Success. Updated src/app.ts" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Done." }] },
      { role: "user", content: [{ type: "text", text: "Now add a test." }] },
    ]);
    const tools = body.tools as Record<string, unknown>[];
    expect(tools[1]).toMatchObject({ name: "apply_patch", input_schema: { required: ["input"] } });
    expect(String(tools[1]?.description)).toContain(GRAMMAR);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect([...dropped].sort()).toEqual([
      "include",
      "prompt_cache_key",
      "reasoning",
      "reasoning.summary",
      "store",
      "text.verbosity",
      "tools[1].format",
    ]);
    expect(() => anthropicMessagesCodec.decodeRequest(body)).not.toThrow();
  });

  it("go to a chat upstream with a developer turn kept in place", () => {
    const { body } = translateRequest("openai-responses", "openai-chat", codexRequest(), {
      model: "glm-4.6",
      stream: true,
    });
    const messages = body.messages as Record<string, unknown>[];
    expect(messages[0]).toEqual({
      role: "system",
      content: "You are a coding agent in a terminal client; follow the repository's conventions.",
    });
    expect(messages[1]).toEqual({
      role: "system",
      content: "<permissions instructions>workspace-write</permissions instructions>",
    });
    expect(messages).toContainEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_2",
          type: "function",
          function: { name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) },
        },
      ],
    });
    expect(body.reasoning_effort).toBe("medium");
    expect(body.parallel_tool_calls).toBe(false);
    expect(() => openAiChatCodec.decodeRequest(body)).not.toThrow();
  });

  it.each(["openai-chat", "anthropic-messages"] as const)(
    "refuses previous_response_id to %s, saying why",
    (target) => {
      const error = refusal(() =>
        translateRequest(
          "openai-responses",
          target,
          codexRequest({ previous_response_id: "resp_123" }),
          { model: "m", stream: true },
        ),
      );
      expect(error.field).toBe("previous_response_id");
      expect(error.code).toBe("unsupported_field");
      expect(error.message).toContain("Responses server's store");
    },
  );

  it("keeps previous_response_id, include and store for a Responses upstream", () => {
    const body = openAiResponsesCodec.client.passThroughRequest(
      codexRequest({ previous_response_id: "resp_123" }),
      { model: "gpt-5-codex", stream: true },
    );
    expect(body).toMatchObject({
      previous_response_id: "resp_123",
      include: ["reasoning.encrypted_content"],
      store: false,
      model: "gpt-5-codex",
    });
  });

  it.each([
    ["tools[0].type", { tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }],
    ["tool_choice", { tools: [{ type: "web_search" }], tool_choice: { type: "web_search" } }],
    ["input[0].type", { input: [{ type: "local_shell_call", call_id: "c", action: {} }] }],
    ["conversation", { conversation: "conv_1" }],
    ["tool_choice", { tool_choice: { type: "allowed_tools", mode: "auto", tools: [] } }],
  ])("refuses %s, naming the field", (field, extra) => {
    const error = refusal(() =>
      openAiResponsesCodec.decodeRequest({ model: "m", input: "hi", ...extra }),
    );
    expect(error.field).toBe(field);
  });

  it("drops Codex's offered web search and namespaced tool groups with a receipt, keeping its functions", () => {
    const request = openAiResponsesCodec.decodeRequest({
      model: "m",
      input: "hi",
      tools: [
        { type: "function", name: "exec_command", parameters: { type: "object" } },
        { type: "namespace", name: "multi_agent_v1", tools: [] },
        { type: "web_search", external_web_access: false },
      ],
    });
    expect(request.tools.map((t) => t.name)).toEqual(["exec_command"]);
    expect(request.dropped).toEqual(["tools[1] (namespace)", "tools[2] (web_search)"]);
  });

  it("refuses stop sequences on the way to a Responses upstream", () => {
    const error = refusal(() =>
      translateRequest(
        "openai-chat",
        "openai-responses",
        { model: "m", messages: [{ role: "user", content: "hi" }], stop: ["END"] },
        { model: "gpt-5", stream: false },
      ),
    );
    expect(error.field).toBe("stop");
  });
});
