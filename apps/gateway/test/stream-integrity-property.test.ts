import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);

/** The concrete models of the standard config, one per upstream protocol. */
const UPSTREAMS = {
  plan: { model: "claude-sonnet-4-5", fake: "plan" },
  router: { model: "qwen/qwen3-coder", fake: "router" },
} as const;

/** The text deltas a client received, in order, from either API's stream. */
function textDeltas(sse: string): string[] {
  const texts: string[] = [];
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const event = JSON.parse(line.slice("data: ".length)) as {
      choices?: { delta?: { content?: string } }[];
      delta?: { type?: string; text?: string };
    };
    const chat = event.choices?.[0]?.delta?.content;
    if (typeof chat === "string" && chat !== "") texts.push(chat);
    if (event.delta?.type === "text_delta" && event.delta.text) texts.push(event.delta.text);
  }
  return texts;
}

describe("stream integrity property: no stream ever ends silently", () => {
  it("a 200 stream ends with the upstream's proper end when it completed, and with an explicit error frame when it was cut, on both APIs and both upstream protocols", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          route: fc.constantFrom("chat", "messages"),
          upstream: fc.constantFrom("plan", "router"),
          chunks: fc.array(fc.stringMatching(/^[a-z]{1,6} $/), { minLength: 1, maxLength: 6 }),
          cut: fc.option(fc.nat({ max: 6 }), { nil: undefined }),
        }),
        async ({ route, upstream, chunks, cut }) => {
          // Each run starts after any cooldown an earlier cut left, so every run reaches its upstream.
          harness.clock.advance(86_400_000);
          const { model, fake } = UPSTREAMS[upstream];
          const cutAfter = cut === undefined ? undefined : Math.min(cut, chunks.length - 1);
          bed.fakes[fake].script(() => ({ stream: { chunks, cutAfter } }));
          const response =
            route === "chat"
              ? await post(harness.url, "/v1/chat/completions", chatBody(model, { stream: true }))
              : await post(harness.url, "/v1/messages", messagesBody(model, { stream: true }));
          const text = await response.text();
          // A cut before the first byte reached the client is an error answer (the only target
          // failed), never a 200 that ends quietly.
          if (response.status !== 200) {
            expect(cutAfter).toBe(0);
            expect(JSON.parse(text)).toHaveProperty("error");
            return;
          }
          const properEnd = route === "chat" ? /data: \[DONE\]\n\n$/ : /event: message_stop\n/;
          const errorFrame =
            route === "chat" ? /data: \{"error":\{[^\n]*\}\}\n\n$/ : /event: error\ndata: \{/;
          if (cutAfter === undefined) {
            expect(textDeltas(text).join("")).toBe(chunks.join(""));
            expect(text).toMatch(properEnd);
            expect(text).not.toMatch(errorFrame);
          } else {
            expect(textDeltas(text).join("")).toBe(chunks.slice(0, cutAfter).join(""));
            expect(text).toMatch(errorFrame);
            expect(text).not.toMatch(properEnd);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
