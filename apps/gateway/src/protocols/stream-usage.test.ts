import { describe, expect, it } from "vitest";
import { createStreamCollector } from "./collect-stream";
import { createStreamTranslator } from "./hub";
import { codecFor } from "./registry";
import { createFrameRelay } from "./sse/frame-relay";
import { fixtureText } from "./test-streams";

// Rule B8 reads a stream's usage when it ends, however it ends. An Anthropic stream counts its
// prompt in `message_start` and its output in `message_delta`: cut in between, the relay, the
// translator and the collector all report the prompt; finished, the final count.

const text = fixtureText("anthropic-messages", "text-stream.sse");
const head = text.slice(0, text.indexOf("\n\n") + 2);
const prompt = { inputTokens: 2125, cachedInputTokens: 2000, cacheWriteTokens: 100 };

const readers = {
  relay: () => createFrameRelay(codecFor("anthropic-messages")),
  translator: () =>
    createStreamTranslator("anthropic-messages", "openai-chat", { model: "m", nowMs: 0 }),
  collector: () => createStreamCollector("anthropic-messages"),
};

describe.each(Object.entries(readers))("an Anthropic stream read by the %s", (_name, open) => {
  it("reports the prompt's count once message_start has come, and nothing before", () => {
    const reader = open();
    expect(reader.usage()).toBeNull();
    reader.push(head);
    expect(reader.usage()).toMatchObject(prompt);
  });

  it("reports the final count once the stream has finished", () => {
    const reader = open();
    reader.push(text);
    if ("flush" in reader) reader.flush();
    else reader.end();
    expect(reader.usage()).toMatchObject({ ...prompt, outputTokens: 12 });
  });
});
