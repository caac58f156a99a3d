import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createStreamTranslator } from "../hub";
import { decodeChunks, fixtureText, parseEvents, splitBytes } from "../test-streams";
import { openAiResponsesCodec } from "./codec";
import { codexRequest, PATCH } from "./test-codex-request";

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
