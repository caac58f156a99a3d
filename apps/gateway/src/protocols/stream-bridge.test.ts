import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createSseParser } from "./sse";
import { createStreamBridge, type StreamBridge } from "./stream-bridge";
import type { SseEvent, WireProtocol } from "./types";

const NOW_MS = Date.parse("2025-09-11T09:16:11Z");

function fixture(name: string): SseEvent[] {
  const text = readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
  const parser = createSseParser();
  return [...parser.push(text), ...parser.flush()];
}

function run(
  upstream: WireProtocol,
  client: WireProtocol,
  events: SseEvent[],
  options: { includeUsage?: boolean } = {},
): { text: string; bridge: StreamBridge } {
  const bridge = createStreamBridge(upstream, client, {
    model: "served-model",
    nowMs: NOW_MS,
    ...options,
  });
  let text = "";
  for (const event of events) text += bridge.push(event);
  if (bridge.finished()) text += bridge.end();
  return { text, bridge };
}

function eventsOf(text: string): SseEvent[] {
  const parser = createSseParser();
  return [...parser.push(text), ...parser.flush()];
}

/** Feeds SSE text to the official OpenAI client and returns its accumulated completion. */
async function openAiFinal(text: string) {
  const client = new OpenAI({
    apiKey: "test",
    baseURL: "http://127.0.0.1:9/v1",
    fetch: async () => new Response(text, { headers: { "content-type": "text/event-stream" } }),
  });
  const stream = client.chat.completions.stream({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
  });
  return stream.finalChatCompletion();
}

/** Feeds SSE text to the official Anthropic client and returns its accumulated message. */
async function anthropicFinal(text: string) {
  const client = new Anthropic({
    apiKey: "test",
    baseURL: "http://127.0.0.1:9",
    fetch: async () => new Response(text, { headers: { "content-type": "text/event-stream" } }),
  });
  return client.messages
    .stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
    .finalMessage();
}

describe("createStreamBridge, OpenAI upstream → Anthropic client", () => {
  it("synthesises the Anthropic event sequence for a text stream, with usage and stop reason", async () => {
    const { text, bridge } = run("openai", "anthropic", fixture("openai-text-stream.sse"));
    expect(eventsOf(text).map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(bridge.finished()).toBe(true);
    expect(bridge.usage()).toEqual({
      inputTokens: 1210,
      outputTokens: 9,
      cachedInputTokens: 1024,
      cacheWriteTokens: 0,
    });
    const message = await anthropicFinal(text);
    expect(message.content).toEqual([{ type: "text", text: "Hello! How can I help?" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.model).toBe("served-model");
    expect(message.usage).toMatchObject({
      input_tokens: 186,
      output_tokens: 9,
      cache_read_input_tokens: 1024,
    });
  });

  it("turns tool-call argument chunks into tool_use blocks with input_json_delta", async () => {
    const { text } = run("openai", "anthropic", fixture("openai-tool-stream.sse"));
    expect(text).toContain('"type":"input_json_delta","partial_json":"location"');
    const message = await anthropicFinal(text);
    expect(message.content).toEqual([
      {
        type: "tool_use",
        id: "call_Xq3mV9tPz2LkR8sW4yNbC1dF",
        name: "get_weather",
        input: { location: "Paris, France" },
      },
      {
        type: "tool_use",
        id: "call_Bn7kQ2wEr5TyU8iO0pAsD3fG",
        name: "get_time",
        input: { tz: "Europe/Paris" },
      },
    ]);
    expect(message.stop_reason).toBe("tool_use");
  });

  it("a cut upstream is not finished, and fail() gives the Anthropic error event", () => {
    const events = fixture("openai-text-stream.sse").slice(0, 3);
    const { bridge } = run("openai", "anthropic", events);
    expect(bridge.finished()).toBe(false);
    expect(
      bridge.fail({
        type: "api_error",
        code: "upstream_stream_cut",
        message: "upstream closed mid-stream",
      }),
    ).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"upstream closed mid-stream"}}\n\n',
    );
  });
});

describe("createStreamBridge, Anthropic upstream → OpenAI client", () => {
  it("turns a text stream into chunks, finish_reason, a usage chunk and [DONE]", async () => {
    const { text, bridge } = run("anthropic", "openai", fixture("anthropic-text-stream.sse"));
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(text).toContain(": ping\n\n");
    expect(bridge.usage()).toEqual({
      inputTokens: 2125,
      outputTokens: 12,
      cachedInputTokens: 2000,
      cacheWriteTokens: 100,
    });
    const completion = await openAiFinal(text);
    expect(completion.id).toBe("chatcmpl-01XFDUDYJgAACzvnptvVoYEL");
    expect(completion.model).toBe("served-model");
    expect(completion.choices[0]!.message.content).toBe("Hello! How can I help?");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({
      prompt_tokens: 2125,
      completion_tokens: 12,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
  });

  it("turns tool_use blocks into tool_calls with streamed arguments", async () => {
    const { text } = run("anthropic", "openai", fixture("anthropic-tool-stream.sse"));
    const completion = await openAiFinal(text);
    const message = completion.choices[0]!.message;
    expect(message.content).toBe("Let me check the weather.");
    expect(message.tool_calls).toEqual([
      {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        type: "function",
        function: { name: "get_weather", arguments: '{"location": "San Francisco, CA"}' },
      },
    ]);
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("leaves out the usage chunk when the client did not ask for it", () => {
    const { text } = run("anthropic", "openai", fixture("anthropic-text-stream.sse"), {
      includeUsage: false,
    });
    expect(text).not.toContain('"usage"');
  });

  it("an upstream error event is held back and fail() ends with an OpenAI error line, no [DONE]", () => {
    const events = [
      ...fixture("anthropic-text-stream.sse").slice(0, 4),
      {
        event: "error",
        data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      },
    ];
    const { text, bridge } = run("anthropic", "openai", events);
    expect(text).not.toContain("Overloaded");
    expect(bridge.upstreamError()).toEqual({ type: "overloaded_error", message: "Overloaded" });
    expect(bridge.finished()).toBe(false);
    const tail = bridge.fail({
      type: "overloaded_error",
      code: "upstream_stream_error",
      message: "Overloaded",
    });
    expect(tail).toBe(
      'data: {"error":{"message":"Overloaded","type":"overloaded_error","code":"upstream_stream_error"}}\n\n',
    );
    expect(bridge.end()).toBe("");
  });
});

describe("createStreamBridge, same protocol", () => {
  it("passes OpenAI frames through and tracks usage and the end", async () => {
    const events = fixture("openai-text-stream.sse");
    const { text, bridge } = run("openai", "openai", events);
    expect(eventsOf(text)).toEqual(events);
    expect(bridge.finished()).toBe(true);
    expect(bridge.usage()?.cachedInputTokens).toBe(1024);
    expect(bridge.end()).toBe("");
  });

  it("an OpenAI stream with finish_reason and usage but no [DONE] is finished; end() adds [DONE]", () => {
    const events = fixture("openai-text-stream.sse").slice(0, -1);
    const bridge = createStreamBridge("openai", "openai", { model: "m" });
    for (const event of events) bridge.push(event);
    expect(bridge.finished()).toBe(true);
    expect(bridge.end()).toBe("data: [DONE]\n\n");
  });

  it("passes Anthropic frames through and is finished only at message_stop", () => {
    const events = fixture("anthropic-tool-stream.sse");
    const bridge = createStreamBridge("anthropic", "anthropic", { model: "m" });
    let text = "";
    for (const event of events.slice(0, -1)) text += bridge.push(event);
    expect(bridge.finished()).toBe(false);
    text += bridge.push(events.at(-1)!);
    expect(bridge.finished()).toBe(true);
    expect(eventsOf(text)).toEqual(events);
    expect(bridge.usage()).toEqual({
      inputTokens: 472,
      outputTokens: 89,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});
