import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchema, streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreamTranslator } from "./hub";
import { codecFor, type ProtocolName } from "./registry";
import { fixtureText } from "./test-streams";

// The official SDKs read what the hub writes, over real HTTP on loopback: each route answers
// with a recorded stream of another protocol translated by the hub, whole or cut short.
interface Script {
  from: ProtocolName;
  fixture: string;
  cutAt?: string;
}

let server: Server;
let baseUrl = "";
let script: Script = { from: "anthropic-messages", fixture: "tool-stream.sse" };

const ROUTES: Record<string, ProtocolName> = {
  "/v1/responses": "openai-responses",
  "/v1/messages": "anthropic-messages",
  "/v1/chat/completions": "openai-chat",
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const to = ROUTES[(req.url ?? "").split("?")[0] ?? ""];
      if (!to) {
        res.writeHead(404).end();
        return;
      }
      const request = codecFor(to).decodeRequest(
        JSON.parse(Buffer.concat(chunks).toString("utf8")),
      );
      const stream = createStreamTranslator(script.from, to, {
        model: "served-model",
        nowMs: 1_757_582_400_000,
        request,
      });
      const text = fixtureText(script.from, script.fixture);
      const upstream = script.cutAt ? text.slice(0, text.indexOf(script.cutAt)) : text;
      res.writeHead(200, { "content-type": "text/event-stream" });
      // Small writes, so the SDKs' own SSE readers see frames split across reads.
      const out = stream.push(upstream) + stream.flush();
      for (let i = 0; i < out.length; i += 700) res.write(out.slice(i, i + 700));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const openai = () => new OpenAI({ apiKey: "test-key", baseURL: `${baseUrl}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: "test-key", baseURL: baseUrl, maxRetries: 0 });

describe("the hub's streams, read by the official SDKs", () => {
  it("openai SDK Responses stream: an Anthropic tool stream becomes a final response with its call and usage", async () => {
    script = { from: "anthropic-messages", fixture: "tool-stream.sse" };
    const stream = openai().responses.stream({
      model: "auto/thrifty",
      input: "Weather in SF?",
      tools: [
        { type: "function", name: "get_weather", parameters: { type: "object" }, strict: false },
      ],
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe("Let me check the weather.");
    expect(final.output[1]).toMatchObject({
      type: "function_call",
      name: "get_weather",
      arguments: '{"location": "San Francisco, CA"}',
    });
    expect(final.usage).toMatchObject({ input_tokens: 472, output_tokens: 89 });
  });

  it("openai SDK Responses stream: a cut upstream rejects instead of completing", async () => {
    script = {
      from: "anthropic-messages",
      fixture: "tool-stream.sse",
      cutAt: "event: message_delta",
    };
    const stream = openai().responses.stream({ model: "auto/thrifty", input: "Weather in SF?" });
    await expect(stream.finalResponse()).rejects.toThrow();
  });

  it("Anthropic SDK message stream: a Responses stream becomes a final message with tool input and usage", async () => {
    script = { from: "openai-responses", fixture: "tool-stream.sse" };
    const final = await anthropic()
      .messages.stream({
        model: "auto/thrifty",
        max_tokens: 1000,
        messages: [{ role: "user", content: "Weather in Paris?" }],
      })
      .finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content).toEqual([
      { type: "text", text: "Let me check the weather." },
      {
        type: "tool_use",
        id: "call_Xq3mV9tPz2LkR8sW4yNbC1dF",
        name: "get_weather",
        input: { location: "Paris, France" },
      },
    ]);
    expect(final.usage).toMatchObject({
      input_tokens: 184,
      cache_read_input_tokens: 128,
      output_tokens: 164,
    });
  });

  it("Anthropic SDK message stream: a cut upstream rejects with the error event", async () => {
    script = {
      from: "openai-chat",
      fixture: "tool-stream.sse",
      cutAt: '"finish_reason":"tool_calls"',
    };
    const stream = anthropic().messages.stream({
      model: "auto/thrifty",
      max_tokens: 1000,
      messages: [{ role: "user", content: "hi" }],
    });
    await expect(stream.finalMessage()).rejects.toThrow(/ended before the response was complete/);
  });

  it("openai SDK chat stream: a Responses tool stream becomes a final completion with its call and usage", async () => {
    script = { from: "openai-responses", fixture: "tool-stream.sse" };
    const final = await openai()
      .chat.completions.stream({
        model: "auto/thrifty",
        messages: [{ role: "user", content: "Weather in Paris?" }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(final.choices[0]?.message.content).toBe("Let me check the weather.");
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      id: "call_Xq3mV9tPz2LkR8sW4yNbC1dF",
      function: { name: "get_weather", arguments: '{"location":"Paris, France"}' },
    });
    expect(final.usage).toMatchObject({ prompt_tokens: 312, completion_tokens: 164 });
  });

  it("AI SDK default OpenAI model (Responses): a chat stream becomes text, a tool call and usage", async () => {
    script = { from: "openai-chat", fixture: "tool-stream.sse" };
    const provider = createOpenAI({ apiKey: "test-key", baseURL: `${baseUrl}/v1` });
    const result = streamText({
      model: provider("auto/thrifty"),
      prompt: "Weather and time in Paris?",
      tools: {
        get_weather: {
          inputSchema: jsonSchema({ type: "object", properties: { location: { type: "string" } } }),
        },
        get_time: {
          inputSchema: jsonSchema({ type: "object", properties: { tz: { type: "string" } } }),
        },
      },
    });
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ["get_weather", { location: "Paris, France" }],
      ["get_time", { tz: "Europe/Paris" }],
    ]);
    expect(await result.finishReason).toBe("tool-calls");
    expect((await result.usage).inputTokens).toBe(85);
  });

  it("AI SDK Anthropic provider: a Responses stream becomes text and usage", async () => {
    script = { from: "openai-responses", fixture: "text-stream.sse" };
    const provider = createAnthropic({ apiKey: "test-key", baseURL: `${baseUrl}/v1` });
    const result = streamText({ model: provider("auto/thrifty"), prompt: "Hello" });
    expect(await result.text).toBe("Hello! How can I help?");
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).outputTokens).toBe(9);
  });
});
