import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeChunks, fixtureText, splitBytes } from "../test-streams";
import { openAiChatCodec } from "./codec";

describe("openai-chat codec, streams", () => {
  it("decodes the recorded tool stream into tool calls, usage and the finish", () => {
    const parts = decodeChunks("openai-chat", [fixtureText("openai-chat", "tool-stream.sse")]);
    expect(parts[0]).toMatchObject({ type: "start", id: "chatcmpl-CFk3aT7uLwQ2mYx8NcVbR5pZsGh1K" });
    const args = parts
      .filter((p) => p.type === "tool-call-delta" && p.callIndex === 0)
      .map((p) => (p.type === "tool-call-delta" ? p.delta : ""));
    expect(args.join("")).toBe('{"location":"Paris, France"}');
    expect(
      parts
        .filter((p) => p.type === "tool-call-start")
        .map((p) => (p.type === "tool-call-start" ? p.name : "")),
    ).toEqual(["get_weather", "get_time"]);
    expect(parts.at(-2)).toMatchObject({
      type: "usage",
      usage: { inputTokens: 85, outputTokens: 38 },
    });
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("re-encodes the decoded stream into chunks that decode to the same parts", () => {
    for (const name of ["text-stream.sse", "tool-stream.sse"]) {
      const parts = decodeChunks("openai-chat", [fixtureText("openai-chat", name)]);
      const encoder = openAiChatCodec.encodeStream({
        model: "gpt-4o-mini",
        nowMs: 1_757_582_171_000,
      });
      const text = parts
        .flatMap((p) => encoder.push(p))
        .map((e) => `data: ${e.data}\n\n`)
        .join("");
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
      const again = decodeChunks("openai-chat", [text]).map((p) =>
        p.type === "start" ? { type: "start" } : p,
      );
      expect(again).toEqual(parts.map((p) => (p.type === "start" ? { type: "start" } : p)));
    }
  });

  it("a cut stream ends with an error part, never a finish", () => {
    const text = fixtureText("openai-chat", "text-stream.sse");
    const parts = decodeChunks("openai-chat", [
      text.slice(0, text.indexOf('finish_reason":"stop')),
    ]);
    expect(parts.some((p) => p.type === "finish")).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: "error", error: { code: "upstream_stream_cut" } });
  });

  it("decodes to the same parts however the bytes are split", () => {
    const text = fixtureText("openai-chat", "tool-stream.sse");
    const whole = decodeChunks("openai-chat", [text]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (cuts) => {
        expect(decodeChunks("openai-chat", splitBytes(text, cuts))).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });
});
