import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeChunks, fixtureText, splitBytes } from "../test-streams";
import { anthropicMessagesCodec } from "./codec";

describe("anthropic-messages codec, streams", () => {
  it("decodes Claude's thinking, signature and tool use, and the final cumulative usage", () => {
    const parts = decodeChunks("anthropic-messages", [
      fixtureText("anthropic-messages", "thinking-tool-stream.sse"),
    ]);
    expect(parts).toEqual([
      { type: "start", id: "msg_01Hq3Lm8TzVb2Nc5Wx7Yk9Rf", model: "claude-opus-4-5-20251101" },
      { type: "reasoning-delta", text: "The user wants the failing test fixed. " },
      { type: "reasoning-delta", text: "I should read the test file first." },
      {
        type: "reasoning-end",
        signature:
          "EqQBCkYIBxgCKkDpZ3b9kQ2mLr7T1xVn4yB8cF6hJ0sW5eU3iO9aR2tY7uI4oP1lK8jH3gF6dS0aQ5wE2rT9yU7iO1pA3sD6fG0hJ4kL8zX==",
      },
      { type: "text-delta", text: "I'll read the test first." },
      {
        type: "tool-call-start",
        callIndex: 0,
        id: "toolu_01A9bXk3Rm7Tq2Vn5Lw8Yz4C",
        name: "Read",
        kind: "function",
      },
      { type: "tool-call-delta", callIndex: 0, delta: '{"file_path": "/repo/src/sum.test.ts"' },
      { type: "tool-call-delta", callIndex: 0, delta: "}" },
      { type: "tool-call-end", callIndex: 0 },
      {
        type: "usage",
        usage: {
          inputTokens: 18651,
          outputTokens: 118,
          cachedInputTokens: 18230,
          cacheWriteTokens: 412,
          reasoningTokens: 0,
        },
      },
      { type: "finish", reason: "tool_calls" },
    ]);
  });

  it("re-encodes a decoded stream into frames that decode to the same text, calls and usage", () => {
    const parts = decodeChunks("anthropic-messages", [
      fixtureText("anthropic-messages", "tool-stream.sse"),
    ]);
    const encoder = anthropicMessagesCodec.encodeStream({
      model: "claude-sonnet-4-5-20250929",
      nowMs: 0,
    });
    const text = parts
      .flatMap((p) => encoder.push(p))
      .map((e) => `event: ${e.event}\ndata: ${e.data}\n\n`)
      .join("");
    expect(decodeChunks("anthropic-messages", [text])).toEqual(parts);
  });

  it("an upstream error event ends the stream with an error part", () => {
    const text = `${fixtureText("anthropic-messages", "text-stream.sse").split("event: content_block_stop")[0]}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    const parts = decodeChunks("anthropic-messages", [text]);
    expect(parts.at(-1)).toEqual({
      type: "error",
      error: { type: "overloaded_error", code: "overloaded_error", message: "Overloaded" },
    });
    expect(parts.some((p) => p.type === "finish")).toBe(false);
  });

  it("decodes to the same parts however the bytes are split", () => {
    const text = fixtureText("anthropic-messages", "thinking-tool-stream.sse");
    const whole = decodeChunks("anthropic-messages", [text]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (cuts) => {
        expect(decodeChunks("anthropic-messages", splitBytes(text, cuts))).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });
});
