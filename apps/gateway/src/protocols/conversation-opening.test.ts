import { describe, expect, it } from "vitest";
import { conversationOpeningOf, translateRequest } from "./hub";
import { legOf } from "./leg";
import type { ClientProtocolName } from "./registry";

const LONG = "x".repeat(10_000);

describe("conversation opening per client protocol", () => {
  it("Messages: system (string or blocks, and system messages), first user text, later turns", () => {
    const first = {
      system: [{ type: "text", text: "You are Claude Code." }],
      messages: [
        { role: "system", content: "extra system" },
        {
          role: "user",
          content: [
            { type: "image", source: {} },
            { type: "text", text: "fix the bug" },
          ],
        },
      ],
    };
    expect(conversationOpeningOf("anthropic-messages", first, 1_000)).toEqual({
      system: "You are Claude Code.\nextra system",
      firstUserMessage: "fix the bug",
      continued: false,
    });
    const later = {
      ...first,
      messages: [
        ...first.messages,
        { role: "assistant", content: "done" },
        { role: "user", content: "thanks" },
      ],
    };
    expect(conversationOpeningOf("anthropic-messages", later, 1_000)).toEqual({
      system: "You are Claude Code.\nextra system",
      firstUserMessage: "fix the bug",
      continued: true,
    });
  });

  it("chat: system and developer messages before the first user message; an assistant or tool message is a later turn", () => {
    const body = {
      messages: [
        { role: "developer", content: "be brief" },
        { role: "user", content: [{ type: "text", text: "hello" }] },
        { role: "system", content: "not the opening" },
      ],
    };
    expect(conversationOpeningOf("openai-chat", body, 1_000)).toEqual({
      system: "be brief",
      firstUserMessage: "hello",
      continued: false,
    });
    const later = {
      messages: [...body.messages, { role: "tool", tool_call_id: "c", content: "out" }],
    };
    expect(conversationOpeningOf("openai-chat", later, 1_000)?.continued).toBe(true);
  });

  it("Responses: instructions, input as a string or items; a call, its output or previous_response_id is a later turn", () => {
    expect(
      conversationOpeningOf("openai-responses", { instructions: "sys", input: "hi" }, 100),
    ).toEqual({ system: "sys", firstUserMessage: "hi", continued: false });
    const items = {
      instructions: "sys",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "dev" }] },
        { role: "user", content: [{ type: "input_text", text: "run ls" }] },
      ],
    };
    expect(conversationOpeningOf("openai-responses", items, 100)).toEqual({
      system: "sys\ndev",
      firstUserMessage: "run ls",
      continued: false,
    });
    const later = {
      ...items,
      input: [...items.input, { type: "function_call", call_id: "c", name: "sh", arguments: "{}" }],
    };
    expect(conversationOpeningOf("openai-responses", later, 100)?.continued).toBe(true);
    expect(
      conversationOpeningOf("openai-responses", { input: "next", previous_response_id: "r" }, 100)
        ?.continued,
    ).toBe(true);
  });

  it("reads at most the bound of each text, so a long prompt costs its first characters only", () => {
    const opening = conversationOpeningOf(
      "openai-chat",
      {
        messages: [
          { role: "system", content: LONG },
          { role: "user", content: LONG },
        ],
      },
      256,
    );
    expect(opening?.system).toHaveLength(256);
    expect(opening?.firstUserMessage).toHaveLength(256);
  });

  it("no user message, or an upstream-only protocol: no opening", () => {
    expect(
      conversationOpeningOf("anthropic-messages", { messages: [{ role: "assistant" }] }, 10),
    ).toBeNull();
    expect(conversationOpeningOf("openai-chat", { messages: "not a list" }, 10)).toBeNull();
    expect(conversationOpeningOf("gemini", { contents: [] }, 10)).toBeNull();
  });
});

describe("prompt cache key on the way upstream", () => {
  const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };

  it("a same-protocol body gets the key only when the client sent none", () => {
    const relayed = (
      protocol: ClientProtocolName,
      body: Record<string, unknown>,
      stream: boolean,
    ) =>
      JSON.parse(
        legOf(protocol, protocol).encodeRequest(
          body,
          { model: "m", stream, promptCacheKey: "k" },
          undefined,
        ).text,
      );
    expect(relayed("openai-chat", chat, false).prompt_cache_key).toBe("k");
    expect(
      relayed("openai-responses", { model: "m", input: "hi", prompt_cache_key: "client-own" }, true)
        .prompt_cache_key,
    ).toBe("client-own");
    expect(relayed("anthropic-messages", { model: "m", messages: [] }, false)).not.toHaveProperty(
      "prompt_cache_key",
    );
  });

  it("a translated body to chat or Responses carries it; Anthropic cache_control reaches Anthropic untouched", () => {
    const messages = {
      model: "m",
      max_tokens: 8,
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "hi" }],
    };
    for (const to of ["openai-chat", "openai-responses"] as const) {
      const { body } = translateRequest("anthropic-messages", to, messages, {
        model: "m",
        stream: false,
        promptCacheKey: "k",
      });
      expect(body.prompt_cache_key).toBe("k");
    }
    const relayed = JSON.parse(
      legOf("anthropic-messages", "anthropic-messages").encodeRequest(
        messages,
        { model: "m", stream: false, promptCacheKey: "k" },
        undefined,
      ).text,
    );
    expect(relayed.system).toEqual(messages.system);
  });
});
