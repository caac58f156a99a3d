import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CollectedAnswer, createStreamCollector, foldStreamParts } from "./collect-stream";
import { encodeAnswer } from "./hub";
import type { IrResponse } from "./ir";
import { parseJsonObject } from "./ir/guards";
import { type ClientProtocolName, codecFor, type ProtocolName } from "./registry";
import { decodeChunks, fixtureText, parseEvents, splitBytes } from "./test-streams";

const FIXTURES: Record<ProtocolName, string[]> = {
  "openai-chat": ["text-stream.sse", "tool-stream.sse"],
  "anthropic-messages": ["text-stream.sse", "tool-stream.sse", "thinking-tool-stream.sse"],
  "openai-responses": ["text-stream.sse", "tool-stream.sse", "custom-tool-stream.sse"],
  gemini: ["text-stream.sse", "tool-stream.sse"],
};

const EVERY_FIXTURE = Object.entries(FIXTURES).flatMap(([protocol, names]) =>
  names.map((name) => [protocol as ProtocolName, name] as const),
);

function collect(protocol: ProtocolName, chunks: readonly (string | Uint8Array)[]) {
  const collector = createStreamCollector(protocol);
  for (const chunk of chunks) collector.push(chunk);
  return collector.end();
}

function answerOf(collected: CollectedAnswer): IrResponse {
  if (!collected.ok) throw new Error(`no answer: ${collected.error.code}`);
  return collected.response;
}

const usage = (
  inputTokens: number,
  outputTokens: number,
  cachedInputTokens = 0,
  cacheWriteTokens = 0,
  reasoningTokens = 0,
) => ({ inputTokens, outputTokens, cachedInputTokens, cacheWriteTokens, reasoningTokens });

/** The whole answer each recorded stream stands for, read off the fixture by hand. */
const EXPECTED: Record<string, IrResponse> = {
  "openai-chat/text-stream.sse": {
    id: "chatcmpl-CFk2pQ8ZrX1nVbT4yHs9LmWq0aEjD",
    model: "gpt-4o-mini-2024-07-18",
    content: [{ type: "text", text: "Hello! How can I help?" }],
    finishReason: "stop",
    usage: usage(1210, 9, 1024),
  },
  "openai-chat/tool-stream.sse": {
    id: "chatcmpl-CFk3aT7uLwQ2mYx8NcVbR5pZsGh1K",
    model: "gpt-4o-mini-2024-07-18",
    content: [
      {
        type: "tool_call",
        id: "call_Xq3mV9tPz2LkR8sW4yNbC1dF",
        name: "get_weather",
        arguments: '{"location":"Paris, France"}',
        kind: "function",
      },
      {
        type: "tool_call",
        id: "call_Bn7kQ2wEr5TyU8iO0pAsD3fG",
        name: "get_time",
        arguments: '{"tz":"Europe/Paris"}',
        kind: "function",
      },
    ],
    finishReason: "tool_calls",
    usage: usage(85, 38),
  },
  "anthropic-messages/text-stream.sse": {
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    model: "claude-sonnet-4-5-20250929",
    content: [{ type: "text", text: "Hello! How can I help?" }],
    finishReason: "stop",
    // Anthropic's input excludes the cache; the hub's includes reads and writes.
    usage: usage(2125, 12, 2000, 100),
  },
  "anthropic-messages/tool-stream.sse": {
    id: "msg_014p7gG3wDgGV9EUtLvnow3U",
    model: "claude-sonnet-4-5-20250929",
    content: [
      { type: "text", text: "Let me check the weather." },
      {
        type: "tool_call",
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        arguments: '{"location": "San Francisco, CA"}',
        kind: "function",
      },
    ],
    finishReason: "tool_calls",
    usage: usage(472, 89),
  },
  "anthropic-messages/thinking-tool-stream.sse": {
    id: "msg_01Hq3Lm8TzVb2Nc5Wx7Yk9Rf",
    model: "claude-opus-4-5-20251101",
    content: [
      {
        type: "reasoning",
        text: "The user wants the failing test fixed. I should read the test file first.",
        signature:
          "EqQBCkYIBxgCKkDpZ3b9kQ2mLr7T1xVn4yB8cF6hJ0sW5eU3iO9aR2tY7uI4oP1lK8jH3gF6dS0aQ5wE2rT9yU7iO1pA3sD6fG0hJ4kL8zX==",
      },
      { type: "text", text: "I'll read the test first." },
      {
        type: "tool_call",
        id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
        name: "Read",
        arguments: '{"file_path": "/repo/src/sum.test.ts"}',
        kind: "function",
      },
    ],
    finishReason: "tool_calls",
    usage: usage(18651, 118, 18230, 412),
  },
  "gemini/text-stream.sse": {
    id: "resp-text-1",
    model: "gemini-2.5-pro",
    content: [
      { type: "reasoning", text: "Thinking about Oslo." },
      { type: "text", text: "Hello, wörld." },
    ],
    finishReason: "stop",
    usage: usage(12, 10, 2, 0, 6),
  },
  "gemini/tool-stream.sse": {
    id: "resp-tool-1",
    model: "gemini-2.5-pro",
    content: [
      { type: "text", text: "Checking." },
      {
        type: "tool_call",
        id: "call_planfirst_0",
        name: "weather",
        arguments: '{"city":"Oslo"}',
        kind: "function",
      },
      {
        type: "tool_call",
        id: "call_planfirst_1",
        name: "time",
        arguments: '{"tz":"CET"}',
        kind: "function",
      },
    ],
    finishReason: "tool_calls",
    usage: usage(30, 9),
  },
};

/** The whole response a Responses stream carries in its `response.completed` event. */
function completedResponse(text: string): unknown {
  const completed = parseEvents([text]).find((event) => event.event === "response.completed");
  return parseJsonObject(completed?.data ?? "")?.response;
}

/** Offset of the frame that completes `protocol`'s stream: cut before it, the stream is cut. */
function completingFrameOffset(protocol: ProtocolName, text: string): number {
  const frames = text.trimEnd().split("\n\n");
  // A chat stream completes once its finish and its usage chunk both came; [DONE] may be missing.
  const completing = protocol === "openai-chat" ? frames.length - 2 : frames.length - 1;
  return frames.slice(0, completing).join("\n\n").length;
}

describe("collecting a stream into a whole answer", () => {
  it.each(EVERY_FIXTURE.filter(([protocol]) => protocol !== "openai-responses"))(
    "%s %s: text, reasoning, tool calls, finish, usage, id and model",
    (protocol, name) => {
      const collected = collect(protocol, [fixtureText(protocol, name)]);
      expect(answerOf(collected)).toEqual(EXPECTED[`${protocol}/${name}`]);
    },
  );

  it.each(FIXTURES["openai-responses"])(
    "openai-responses %s: the same answer its response.completed event carries whole",
    (name) => {
      const text = fixtureText("openai-responses", name);
      const whole = codecFor("openai-responses").decodeResponse(completedResponse(text));
      expect(answerOf(collect("openai-responses", [text]))).toEqual(whole);
    },
  );

  it("folds the decoder's parts the same way, wherever the body is cut into chunks", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVERY_FIXTURE),
        fc.array(fc.nat(), { maxLength: 12 }),
        ([protocol, name], cuts) => {
          const text = fixtureText(protocol, name);
          const parts = decodeChunks(protocol, [text]);
          const chunked = collect(protocol, splitBytes(text, cuts));
          expect(chunked).toEqual(foldStreamParts(parts));
          expect(chunked.ok).toBe(true);
        },
      ),
    );
  });

  it("never answers from a stream cut before its completing frame", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVERY_FIXTURE), fc.nat(), ([protocol, name], at) => {
        const text = fixtureText(protocol, name);
        const prefix = text.slice(0, at % (completingFrameOffset(protocol, text) + 1));
        const collected = collect(protocol, [prefix]);
        expect(collected.ok).toBe(false);
        if (!collected.ok) expect(collected.error.code).toBe("upstream_stream_cut");
      }),
    );
  });

  it("a cut anywhere either fails or gives the whole answer, never a shorter one", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVERY_FIXTURE), fc.nat(), ([protocol, name], at) => {
        const text = fixtureText(protocol, name);
        const whole = collect(protocol, [text]);
        const cut = collect(protocol, [text.slice(0, at % (text.length + 1))]);
        if (cut.ok) expect(cut).toEqual(whole);
      }),
    );
  });

  it("an error the upstream reports mid-stream is a failure with its code, not the text so far", () => {
    const responses = fixtureText("openai-responses", "text-stream.sse").split(
      "event: response.output_text.done",
    )[0];
    const failed = `${responses}event: response.failed\ndata: ${JSON.stringify({
      type: "response.failed",
      response: { status: "failed", error: { code: "server_error", message: "boom" } },
    })}\n\n`;
    const collector = createStreamCollector("openai-responses");
    collector.push(failed);
    expect(collector.failed()).toBe(true);
    expect(collector.end()).toEqual({
      ok: false,
      error: { type: "api_error", code: "server_error", message: "boom" },
    });

    const messages = fixtureText("anthropic-messages", "text-stream.sse").split(
      "event: message_delta",
    )[0];
    const overloaded = `${messages}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    expect(collect("anthropic-messages", [overloaded])).toMatchObject({
      ok: false,
      error: { code: "overloaded_error" },
    });
  });

  it("keeps a reasoning part with no text of its own, and reads nothing after the finish", () => {
    const collected = foldStreamParts([
      { type: "start", id: "msg_1" },
      { type: "reasoning-end", redactedData: "EmwKAhgB" },
      { type: "text-delta", text: "Done." },
      { type: "finish", reason: "stop_sequence", stopSequence: "END" },
      { type: "text-delta", text: " And more." },
      { type: "error", error: { type: "api_error", code: "late", message: "late" } },
    ]);
    expect(answerOf(collected)).toEqual({
      id: "msg_1",
      content: [
        { type: "reasoning", text: "", redactedData: "EmwKAhgB" },
        { type: "text", text: "Done." },
      ],
      finishReason: "stop_sequence",
      stopSequence: "END",
      usage: null,
    });
  });
});

describe("a collected answer in each client protocol", () => {
  const nowMs = 1_757_582_400_000;
  const CLIENTS: ClientProtocolName[] = ["openai-chat", "anthropic-messages", "openai-responses"];

  it.each(CLIENTS)("a Responses stream's text, call and usage reach a %s client", (client) => {
    const text = fixtureText("openai-responses", "tool-stream.sse");
    const answer = answerOf(collect("openai-responses", [text]));
    const encoded = encodeAnswer("openai-responses", client, answer, { model: "gpt-5", nowMs });
    const back = codecFor(client).decodeResponse(encoded.body);
    expect(back.content.filter((part) => part.type !== "reasoning")).toMatchObject([
      { type: "text", text: "Let me check the weather." },
      {
        type: "tool_call",
        id: "call_Xq3mV9tPz2LkR8sW4yNbC1dF",
        name: "get_weather",
        kind: "function",
      },
    ]);
    expect(back.finishReason).toBe("tool_calls");
    expect(encoded.usage).toEqual(usage(312, 164, 128, 0, 128));
  });

  it("a Responses client gets the encrypted reasoning and the server's own item ids back", () => {
    const text = fixtureText("openai-responses", "tool-stream.sse");
    const answer = answerOf(collect("openai-responses", [text]));
    const encoded = encodeAnswer("openai-responses", "openai-responses", answer, {
      model: "gpt-5",
      nowMs,
    });
    expect(encoded.dropped).toEqual([]);
    const output = encoded.body.output as { type: string; id: string }[];
    expect(output.map((item) => [item.type, item.id])).toEqual([
      ["reasoning", "rs_68c2f1a1c0d48190b7e2f4a6c8d0e2f4"],
      ["message", expect.stringMatching(/^msg_/)],
      ["function_call", "fc_68c2f1a3d5e78190c9f1a3b5d7e9f1a3"],
    ]);
    expect(output[0]).toMatchObject({ encrypted_content: expect.stringMatching(/^gAAAA/) });
  });

  it("a custom call that travelled as a function comes back to a Responses client as a custom call", () => {
    const request = codecFor("openai-responses").decodeRequest({
      model: "gpt-5",
      input: "patch it",
      tools: [{ type: "custom", name: "apply_patch", description: "Apply a patch" }],
    });
    const answer = answerOf(
      foldStreamParts([
        { type: "start", id: "chatcmpl-9" },
        {
          type: "tool-call-start",
          callIndex: 0,
          id: "call_1",
          name: "apply_patch",
          kind: "function",
        },
        { type: "tool-call-delta", callIndex: 0, delta: '{"input":"*** Begin Patch\\n' },
        { type: "tool-call-delta", callIndex: 0, delta: '*** End Patch"}' },
        { type: "tool-call-end", callIndex: 0 },
        { type: "finish", reason: "tool_calls" },
      ]),
    );
    const encoded = encodeAnswer("openai-chat", "openai-responses", answer, {
      model: "glm-4.6",
      nowMs,
      request,
    });
    expect(encoded.body.output).toMatchObject([
      {
        type: "custom_tool_call",
        call_id: "call_1",
        name: "apply_patch",
        input: "*** Begin Patch\n*** End Patch",
      },
    ]);
  });
});
