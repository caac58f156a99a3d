import { describe, expect, it } from "vitest";
import { legOf } from "./leg";
import { ProtocolError } from "./protocol-error";
import { CLIENT_PROTOCOL_NAMES, PROTOCOL_NAMES } from "./registry";
import { fixtureText } from "./test-streams";

const CHAT_BODY = { model: "auto/thrifty", messages: [{ role: "user", content: "hi" }] };
const NOW = () => 1_757_582_400_000;

function streamText(leg: ReturnType<typeof legOf>, clientBody: Record<string, unknown>) {
  const sent = leg.encodeRequest(clientBody, { model: "gpt-4o-mini", stream: true }, undefined);
  const stream = leg.openStream(sent, clientBody, "gpt-4o-mini", NOW);
  return stream.push(fixtureText(leg.upstream, "text-stream.sse")) + stream.flush();
}

describe("legs between client and upstream protocols", () => {
  it("relays between one protocol and itself and translates between two, one leg per pair", () => {
    for (const client of CLIENT_PROTOCOL_NAMES) {
      for (const upstream of PROTOCOL_NAMES) {
        const leg = legOf(client, upstream);
        expect(leg).toBe(legOf(client, upstream));
        expect(leg).toMatchObject({ client, upstream, relay: client === upstream });
      }
    }
  });

  it("passes a same-protocol body through, asking a chat stream for the usage it needs", () => {
    const sent = legOf("openai-chat", "openai-chat").encodeRequest(
      { ...CHAT_BODY, temperature: 0.2, stream: false },
      { model: "gpt-4o-mini", stream: true },
      undefined,
    );
    expect(JSON.parse(sent.text)).toEqual({
      ...CHAT_BODY,
      model: "gpt-4o-mini",
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent).toMatchObject({ dropped: [], request: undefined });
  });

  it("passes a __proto__ key of a client body through as a key, never as the copy's prototype", () => {
    // JSON.parse makes `__proto__` an own key; the copy must keep it one, at the top level and
    // in the stream options the relay adds to.
    const body = JSON.parse(
      '{"model":"auto/thrifty","messages":[],"__proto__":{"stream":false},' +
        '"stream_options":{"__proto__":{"x":1},"y":2}}',
    ) as Record<string, unknown>;
    const sent = legOf("openai-chat", "openai-chat").encodeRequest(
      body,
      { model: "gpt-4o-mini", stream: true, promptCacheKey: "k" },
      undefined,
    );
    const upstream = JSON.parse(sent.text) as Record<string, unknown>;
    expect(Object.keys(upstream)).toEqual([
      "model",
      "messages",
      "__proto__",
      "stream_options",
      "stream",
      "prompt_cache_key",
    ]);
    expect(Object.getOwnPropertyDescriptor(upstream, "__proto__")?.value).toEqual({
      stream: false,
    });
    const options = upstream.stream_options as Record<string, unknown>;
    expect(Object.keys(options)).toEqual(["__proto__", "y", "include_usage"]);
    expect(upstream.stream).toBe(true);
  });

  it("hides the usage chunk it asked for only from a chat client that did not ask for it", () => {
    const leg = legOf("openai-chat", "openai-chat");
    const usageChunk = '"choices":[],"usage"';
    expect(streamText(leg, CHAT_BODY)).not.toContain(usageChunk);
    const asked = { ...CHAT_BODY, stream_options: { include_usage: true } };
    expect(streamText(leg, asked)).toContain(usageChunk);
  });

  it("serves a sub-endpoint only on a relay", () => {
    const body = { model: "gpt-5-codex", input: "hi" };
    expect(
      legOf("openai-responses", "openai-responses").encodeRequest(
        body,
        { model: "m", stream: false },
        "/compact",
      ).text,
    ).toContain('"input":"hi"');
    let error: unknown;
    try {
      legOf("openai-responses", "openai-chat").encodeRequest(
        body,
        { model: "m", stream: false },
        "/compact",
      );
    } catch (e) {
      error = e;
    }
    expect(ProtocolError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "unsupported_field", field: "endpoint" });
  });

  it("reads a whole answer as it came on a relay, translated otherwise", () => {
    const answer = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o-mini",
      choices: [
        { index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    };
    const text = JSON.stringify(answer);
    const relay = legOf("openai-chat", "openai-chat");
    const relayed = relay.readWhole(
      relay.encodeRequest(CHAT_BODY, { model: "m", stream: false }, undefined),
      text,
      answer,
      "m",
      NOW,
    );
    expect(relayed.text).toBe(text);
    expect(relayed.usage).toMatchObject({ inputTokens: 5, outputTokens: 1 });
    const messagesBody = { model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] };
    const translate = legOf("anthropic-messages", "openai-chat");
    const translated = translate.readWhole(
      translate.encodeRequest(messagesBody, { model: "m", stream: false }, undefined),
      text,
      answer,
      "m",
      NOW,
    );
    expect(JSON.parse(translated.text)).toMatchObject({
      type: "message",
      content: [{ type: "text", text: "hello" }],
    });
    expect(translated.usage).toMatchObject({ inputTokens: 5, outputTokens: 1 });
  });
});
