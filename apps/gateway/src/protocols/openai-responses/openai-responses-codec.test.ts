import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicMessagesCodec } from "../anthropic-messages/codec";
import { createStreamTranslator, translateRequest, translateResponse } from "../hub";
import { openAiChatCodec } from "../openai-chat/codec";
import { ProtocolError } from "../protocol-error";
import { decodeChunks, fixtureText, parseEvents, splitBytes } from "../test-streams";
import { openAiResponsesCodec } from "./codec";

const PATCH =
  "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-const port = 3000;\n+const port = Number(process.env.PORT ?? 3000);\n*** End Patch";
const GRAMMAR =
  'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?';

/** A request in the shape Codex CLI sends to a custom provider (`wire_api = "responses"`). */
function codexRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "gpt-5-codex",
    instructions:
      "You are a coding agent in a terminal client; follow the repository's conventions.",
    input: [
      {
        type: "message",
        role: "developer",
        content: [
          {
            type: "input_text",
            text: "<permissions instructions>workspace-write</permissions instructions>",
          },
        ],
      },
      {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
          },
        ],
      },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Read the port from PORT" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
        ],
      },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "**Finding the port**" }],
        content: null,
        encrypted_content: "gAAAAABowvGh",
      },
      {
        type: "function_call",
        id: "fc_1",
        name: "shell",
        arguments: '{"command":["rg","port"]}',
        call_id: "call_1",
      },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: "src/app.ts:1:const port = 3000;",
      },
      {
        type: "custom_tool_call",
        id: "ctc_1",
        status: "completed",
        call_id: "call_2",
        name: "apply_patch",
        input: PATCH,
      },
      { type: "custom_tool_call_output", call_id: "call_2", output: "Success. Updated src/app.ts" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Now add a test." }] },
    ],
    tools: [
      {
        type: "function",
        name: "shell",
        description: "Runs a shell command and returns its output.",
        strict: false,
        parameters: {
          type: "object",
          properties: { command: { type: "array", items: { type: "string" } } },
          required: ["command"],
          additionalProperties: false,
        },
      },
      {
        type: "custom",
        name: "apply_patch",
        description: "Use the `apply_patch` tool to edit files.",
        format: { type: "grammar", syntax: "lark", definition: GRAMMAR },
      },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "0199a7b2-5c1d-7e3f-9a0b-1c2d3e4f5a6b",
    text: { verbosity: "medium" },
    ...extra,
  };
}

function refusal(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (error) {
    if (ProtocolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ProtocolError");
}

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

describe("openai-responses codec, streams", () => {
  it("decodes reasoning summaries, encrypted reasoning, text and a function call, and the usage", () => {
    const parts = decodeChunks("openai-responses", [
      fixtureText("openai-responses", "tool-stream.sse"),
    ]);
    expect(parts.filter((p) => p.type !== "reasoning-end")).toEqual([
      {
        type: "start",
        id: "resp_68c2f1a0b4e88190a1d3c5e7f9b2d4a60f1e3c5a7b9d1e3f",
        model: "gpt-5-2025-08-07",
      },
      { type: "reasoning-delta", text: "**Checking the weather**\n\n" },
      {
        type: "reasoning-delta",
        text: "The user wants the weather in Paris; I should call get_weather.",
      },
      { type: "text-delta", text: "Let me check" },
      { type: "text-delta", text: " the weather." },
      {
        type: "tool-call-start",
        callIndex: 0,
        id: "call_Xq3mV9tPz2LkR8sW4yNbC1dF",
        name: "get_weather",
        kind: "function",
        itemId: "fc_68c2f1a3d5e78190c9f1a3b5d7e9f1a3",
      },
      { type: "tool-call-delta", callIndex: 0, delta: '{"location":' },
      { type: "tool-call-delta", callIndex: 0, delta: '"Paris, France"}' },
      { type: "tool-call-end", callIndex: 0 },
      {
        type: "usage",
        usage: {
          inputTokens: 312,
          outputTokens: 164,
          cachedInputTokens: 128,
          cacheWriteTokens: 0,
          reasoningTokens: 128,
        },
      },
      { type: "finish", reason: "tool_calls" },
    ]);
    expect(parts.find((p) => p.type === "reasoning-end")).toMatchObject({
      id: "rs_68c2f1a1c0d48190b7e2f4a6c8d0e2f4",
      encryptedContent: expect.stringMatching(/^gAAAA/),
    });
  });

  it("decodes a custom tool call's input deltas", () => {
    const parts = decodeChunks("openai-responses", [
      fixtureText("openai-responses", "custom-tool-stream.sse"),
    ]);
    expect(parts[1]).toEqual({
      type: "tool-call-start",
      callIndex: 0,
      id: "call_Pa7cH2kR9tLm4Vq8WzX1bN3d",
      name: "apply_patch",
      kind: "custom",
      itemId: "ctc_68c2f2b8e1f28190a3b5c7d9e1f3a5b7",
    });
    const input = parts.map((p) => (p.type === "tool-call-delta" ? p.delta : "")).join("");
    expect(input).toBe(PATCH);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("streams a chat upstream's wrapped call to a Responses client as custom tool call events", () => {
    const request = openAiResponsesCodec.decodeRequest(codexRequest());
    const args = JSON.stringify({ input: PATCH });
    const chunk = (delta: unknown, finish: string | null = null, usage: unknown = null) =>
      `data: ${JSON.stringify({ id: "chatcmpl-77", object: "chat.completion.chunk", created: 1, model: "glm-4.6", choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`;
    const upstream = [
      chunk({ role: "assistant", content: "" }),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_5",
            type: "function",
            function: { name: "apply_patch", arguments: "" },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 20) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(20) } }] }),
      chunk({}, "tool_calls"),
      chunk(null, null, { prompt_tokens: 900, completion_tokens: 40 }),
      "data: [DONE]\n\n",
    ].join("");
    const stream = createStreamTranslator("openai-chat", "openai-responses", {
      model: "glm-4.6",
      nowMs: 1_757_582_400_000,
      request,
    });
    const text = stream.push(upstream) + stream.flush();
    const events = parseEvents([text]);
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const payloads = events.map((e) => JSON.parse(e.data));
    expect(payloads.map((p) => p.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(payloads[3]).toMatchObject({ item_id: "ctc_77_0", output_index: 0, delta: PATCH });
    expect(payloads[5].item).toEqual({
      id: "ctc_77_0",
      type: "custom_tool_call",
      status: "completed",
      call_id: "call_5",
      name: "apply_patch",
      input: PATCH,
    });
    expect(payloads[6].response).toMatchObject({
      id: "resp_77",
      status: "completed",
      usage: { input_tokens: 900, output_tokens: 40, total_tokens: 940 },
    });
    expect(stream.finished()).toBe(true);
    expect(stream.usage()).toMatchObject({ inputTokens: 900, outputTokens: 40 });
  });

  it("streams an Anthropic upstream to a Responses client in the Responses event format", () => {
    const stream = createStreamTranslator("anthropic-messages", "openai-responses", {
      model: "claude-sonnet-4-5",
      nowMs: 0,
    });
    const text = stream.push(fixtureText("anthropic-messages", "tool-stream.sse")) + stream.flush();
    const events = parseEvents([text]);
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const completed = JSON.parse(events.at(-1)?.data ?? "{}");
    expect(completed.response.output.map((o: { type: string }) => o.type)).toEqual([
      "message",
      "function_call",
    ]);
    expect(completed.response.output[1]).toMatchObject({
      call_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      name: "get_weather",
      arguments: '{"location": "San Francisco, CA"}',
    });
    expect(completed.response.usage).toMatchObject({ input_tokens: 472, output_tokens: 89 });
    // And the Responses decoder reads it back to the same text and call.
    const back = decodeChunks("openai-responses", [text]);
    expect(back.map((p) => (p.type === "text-delta" ? p.text : "")).join("")).toBe(
      "Let me check the weather.",
    );
    expect(back.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("a cut upstream ends a Responses stream with error and response.failed, never response.completed", () => {
    const fixture = fixtureText("anthropic-messages", "tool-stream.sse");
    const stream = createStreamTranslator("anthropic-messages", "openai-responses", {
      model: "claude",
      nowMs: 0,
    });
    const text =
      stream.push(fixture.slice(0, fixture.indexOf("event: message_delta"))) + stream.flush();
    const names = parseEvents([text]).map((e) => e.event);
    expect(names.slice(-2)).toEqual(["error", "response.failed"]);
    expect(names).not.toContain("response.completed");
    expect(stream.finished()).toBe(false);
    expect(stream.upstreamError()).toMatchObject({ code: "upstream_stream_cut" });
  });

  it("decodes to the same parts however the bytes are split", () => {
    for (const name of ["tool-stream.sse", "custom-tool-stream.sse"]) {
      const text = fixtureText("openai-responses", name);
      const whole = decodeChunks("openai-responses", [text]);
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), (cuts) => {
          expect(decodeChunks("openai-responses", splitBytes(text, cuts))).toEqual(whole);
        }),
        { numRuns: 100 },
      );
    }
  });
});
