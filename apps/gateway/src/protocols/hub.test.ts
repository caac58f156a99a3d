import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createStreamTranslator, translateRequest } from "./hub";
import {
  CLIENT_PROTOCOL_NAMES,
  type ClientProtocolName,
  codecFor,
  type ProtocolName,
} from "./registry";
import { decodeChunks, fixtureText, parseEvents, splitBytes } from "./test-streams";

const FIXTURES: Record<ClientProtocolName, string[]> = {
  "openai-chat": ["text-stream.sse", "tool-stream.sse"],
  "anthropic-messages": ["text-stream.sse", "tool-stream.sse", "thinking-tool-stream.sse"],
  "openai-responses": ["text-stream.sse", "tool-stream.sse", "custom-tool-stream.sse"],
};

const PAIRS = CLIENT_PROTOCOL_NAMES.flatMap((from) =>
  CLIENT_PROTOCOL_NAMES.filter((to) => to !== from).map((to) => [from, to] as const),
);

function translate(from: ProtocolName, to: ProtocolName, chunks: readonly (string | Uint8Array)[]) {
  const stream = createStreamTranslator(from, to, {
    model: "served-model",
    nowMs: 1_757_582_400_000,
  });
  let text = "";
  for (const chunk of chunks) text += stream.push(chunk);
  text += stream.flush();
  return { text, stream };
}

/** What a client of `protocol` would count as a clean end, and as an error end. */
function ending(protocol: ProtocolName, text: string): "clean" | "error" | "none" {
  const events = parseEvents([text]);
  const last = events.at(-1);
  if (!last) return "none";
  if (protocol === "openai-chat") {
    if (last.data === "[DONE]") return "clean";
    return last.data.startsWith('{"error"') ? "error" : "none";
  }
  if (protocol === "anthropic-messages") {
    if (last.event === "message_stop") return "clean";
    return last.event === "error" ? "error" : "none";
  }
  if (last.event === "response.completed" || last.event === "response.incomplete") return "clean";
  return last.event === "response.failed" ? "error" : "none";
}

describe("the hub, streams across every pair of protocols", () => {
  it.each(PAIRS)(
    "%s → %s: every recorded stream ends cleanly, with its usage, and text and calls intact",
    (from, to) => {
      for (const name of FIXTURES[from]) {
        const source = decodeChunks(from, [fixtureText(from, name)]);
        const { text, stream } = translate(from, to, [fixtureText(from, name)]);
        expect(ending(to, text)).toBe("clean");
        expect(stream.finished()).toBe(true);
        expect(stream.upstreamError()).toBeNull();
        const usage = source.findLast((p) => p.type === "usage");
        expect(stream.usage()).toEqual(usage?.type === "usage" ? usage.usage : null);
        // The client's own decoder reads back the same text and tool calls.
        const back = decodeChunks(to, [text]);
        const textOf = (parts: typeof source) =>
          parts.map((p) => (p.type === "text-delta" ? p.text : "")).join("");
        const callsOf = (parts: typeof source) =>
          parts
            .flatMap((p) =>
              p.type === "tool-call-start"
                ? [p.name]
                : p.type === "tool-call-delta"
                  ? [p.delta]
                  : [],
            )
            .join("|");
        expect(textOf(back)).toBe(textOf(source));
        expect(callsOf(back).replaceAll("|", "")).toBe(callsOf(source).replaceAll("|", ""));
        const backUsage = back.findLast((p) => p.type === "usage");
        if (usage?.type === "usage") {
          expect(backUsage).toMatchObject({
            usage: { inputTokens: usage.usage.inputTokens, outputTokens: usage.usage.outputTokens },
          });
        }
      }
    },
  );

  it.each(PAIRS)(
    "%s → %s: a stream cut anywhere ends with the client's error frame, never a clean end",
    (from, to) => {
      const text = fixtureText(from, FIXTURES[from][1] ?? "");
      fc.assert(
        fc.property(fc.nat({ max: text.length - 1 }), (cut) => {
          const upstream = text.slice(0, cut);
          const complete = decodeChunks(from, [upstream]).some((p) => p.type === "finish");
          const { text: out, stream } = translate(from, to, [upstream]);
          expect(ending(to, out)).toBe(complete ? "clean" : "error");
          expect(stream.finished()).toBe(complete);
        }),
        { numRuns: 60 },
      );
    },
  );

  it.each(PAIRS)(
    "%s → %s: output does not depend on how the upstream bytes were split",
    (from, to) => {
      const text = fixtureText(from, FIXTURES[from][1] ?? "");
      const whole = translate(from, to, [text]).text;
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 30 }), (cuts) => {
          expect(translate(from, to, splitBytes(text, cuts)).text).toBe(whole);
        }),
        { numRuns: 40 },
      );
    },
  );

  it("gives a chat client the usage chunk only when it asked for it", () => {
    const upstream = fixtureText("anthropic-messages", "text-stream.sse");
    for (const includeUsage of [true, false]) {
      const request = codecFor("openai-chat").decodeRequest({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      const stream = createStreamTranslator("anthropic-messages", "openai-chat", {
        model: "m",
        nowMs: 0,
        request,
      });
      const text = stream.push(upstream) + stream.flush();
      expect(text.includes('"choices":[],"usage"')).toBe(includeUsage);
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
      // The ledger gets the usage either way.
      expect(stream.usage()).toMatchObject({
        inputTokens: 2125,
        outputTokens: 12,
        cachedInputTokens: 2000,
        cacheWriteTokens: 100,
      });
    }
  });

  it("fail() after the start ends the client stream with its error frame, once", () => {
    const stream = createStreamTranslator("openai-chat", "anthropic-messages", {
      model: "m",
      nowMs: 0,
    });
    const head = fixtureText("openai-chat", "text-stream.sse")
      .split("\n\n")
      .slice(0, 2)
      .join("\n\n");
    stream.push(`${head}\n\n`);
    const failure = stream.fail({
      type: "timeout_error",
      code: "timeout",
      message: "upstream went quiet",
    });
    expect(parseEvents([failure])).toEqual([
      {
        event: "error",
        data: '{"type":"error","error":{"type":"timeout_error","message":"upstream went quiet"}}',
      },
    ]);
    expect(stream.fail({ type: "x", code: "y", message: "z" })).toBe("");
    expect(stream.flush()).toBe("");
  });
});

describe("the hub, requests across every pair of protocols", () => {
  const samples: Record<ClientProtocolName, Record<string, unknown>> = {
    "openai-chat": {
      model: "auto/thrifty",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Oslo?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "weather", arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "-3°C" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        },
      ],
      max_tokens: 500,
    },
    "anthropic-messages": {
      model: "auto/thrifty",
      max_tokens: 500,
      system: "Be brief.",
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call_1", name: "weather", input: { city: "Oslo" } }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "call_1", content: "-3°C" }],
        },
      ],
      tools: [
        {
          name: "weather",
          input_schema: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
    },
    "openai-responses": {
      model: "auto/thrifty",
      instructions: "Be brief.",
      input: [
        { role: "user", content: "Weather in Oslo?" },
        { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Oslo"}' },
        { type: "function_call_output", call_id: "call_1", output: "-3°C" },
      ],
      tools: [
        {
          type: "function",
          name: "weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
      max_output_tokens: 500,
    },
  };

  it.each(PAIRS)("%s → %s → back keeps the conversation, its tools and its limit", (from, to) => {
    const there = translateRequest(from, to, samples[from], { model: "m", stream: false });
    const back = translateRequest(to, from, there.body, { model: "auto/thrifty", stream: false });
    // Leading system turns and a top-level system prompt are the same thing to every protocol.
    const ir = (body: unknown) => {
      const request = codecFor(from).decodeRequest(body);
      const messages = [...request.messages];
      const system = request.system.map((p) => p.text);
      while (messages[0]?.role === "system")
        system.push(
          ...(messages.shift()?.content ?? []).map((p) => (p.type === "text" ? p.text : "")),
        );
      return {
        system,
        messages,
        tools: request.tools.map((t) => t.name),
        max: request.maxOutputTokens,
      };
    };
    expect(ir(back.body)).toEqual(ir(samples[from]));
    expect(there.dropped).toEqual([]);
  });
});
