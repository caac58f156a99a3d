import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CODECS, codecFor, type ProtocolName } from "../registry";
import { decodeChunks, fixtureText, parseEvents, splitBytes } from "../test-streams";
import { createFrameRelay } from "./frame-relay";

const FIXTURES: [ProtocolName, string][] = [
  ["openai-chat", "text-stream.sse"],
  ["openai-chat", "tool-stream.sse"],
  ["anthropic-messages", "tool-stream.sse"],
  ["anthropic-messages", "thinking-tool-stream.sse"],
  ["openai-responses", "tool-stream.sse"],
  ["openai-responses", "custom-tool-stream.sse"],
];

function relay(
  protocol: ProtocolName,
  chunks: readonly (string | Uint8Array)[],
  hidden: ((data: string) => boolean) | null = null,
) {
  const stream = createFrameRelay(codecFor(protocol), hidden ? { hidden } : undefined);
  let text = "";
  for (const chunk of chunks) text += stream.push(chunk);
  text += stream.flush();
  return { text, stream };
}

describe("createFrameRelay", () => {
  it.each(FIXTURES)(
    "copies a %s stream (%s) byte for byte, cut anywhere, and accounts its usage",
    (protocol, name) => {
      const text = fixtureText(protocol, name);
      const usage = decodeChunks(protocol, [text]).findLast((p) => p.type === "usage");
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 30 }), (cuts) => {
          const { text: out, stream } = relay(protocol, splitBytes(text, cuts));
          expect(out).toBe(text);
          expect(stream.finished()).toBe(true);
          expect(stream.usage()).toEqual(usage?.type === "usage" ? usage.usage : null);
        }),
        { numRuns: 60 },
      );
    },
  );

  it.each(FIXTURES)(
    "ends a %s stream (%s) cut short with the protocol's error frame",
    (protocol, name) => {
      const text = fixtureText(protocol, name);
      const cut = text.slice(0, Math.floor(text.length / 2));
      const { text: out, stream } = relay(protocol, [cut]);
      expect(out.startsWith(cut.slice(0, cut.lastIndexOf("\n\n") + 2))).toBe(true);
      expect(stream.finished()).toBe(false);
      expect(stream.upstreamError()).toMatchObject({ code: "upstream_stream_cut" });
      const last = parseEvents([out]).at(-1);
      if (protocol === "openai-chat") expect(last?.data).toContain('"upstream_stream_cut"');
      else if (protocol === "anthropic-messages") expect(last?.event).toBe("error");
      else expect(last?.event).toBe("response.failed");
    },
  );

  it("adds [DONE] to a chat stream that finished with usage but never sent it", () => {
    const text = fixtureText("openai-chat", "text-stream.sse").replace("data: [DONE]\n\n", "");
    const { text: out, stream } = relay("openai-chat", [text]);
    expect(out).toBe(`${text}data: [DONE]\n\n`);
    expect(stream.finished()).toBe(true);
  });

  it("hides the usage-only chunk from a chat client that did not ask for usage, and still counts it", () => {
    const text = fixtureText("openai-chat", "text-stream.sse");
    const chat = CODECS["openai-chat"].client;
    const { text: out, stream } = relay("openai-chat", [text], chat.hiddenFrames({}));
    expect(out).not.toContain('"choices":[]');
    expect(out.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(stream.usage()).not.toBeNull();
    const asked = chat.hiddenFrames({ stream_options: { include_usage: true } });
    expect(asked).toBeNull();
    expect(relay("openai-chat", [text], asked).text).toBe(text);
  });

  it("passes an upstream error frame through and ends the stream there", () => {
    const head =
      fixtureText("anthropic-messages", "text-stream.sse").split("event: content_block_stop")[0] ??
      "";
    const error =
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const { text: out, stream } = relay("anthropic-messages", [
      head + error,
      "event: ping\ndata: {}\n\n",
    ]);
    expect(out).toBe(head + error);
    expect(stream.upstreamError()).toEqual({
      type: "overloaded_error",
      code: "overloaded_error",
      message: "Overloaded",
    });
  });

  it("drops a leading byte-order mark from an upstream's bytes and relays the rest", () => {
    const frames = fixtureText("openai-chat", "text-stream.sse");
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(frames)]);
    const withMark = relay("openai-chat", [bytes.slice(0, 2), bytes.slice(2)]);
    expect(parseEvents([withMark.text])).toEqual(
      parseEvents([relay("openai-chat", [frames]).text]),
    );
    expect(withMark.text.charCodeAt(0)).not.toBe(0xfeff);
    expect(withMark.stream.finished()).toBe(true);
  });

  it("re-serialises frames in other shapes (CRLF, comments) and still finds the end", () => {
    const text = fixtureText("openai-responses", "text-stream.sse").replaceAll("\n", "\r\n");
    const { text: out, stream } = relay("openai-responses", [`: keep-alive\r\n\r\n${text}`]);
    expect(parseEvents([out])).toEqual(parseEvents([text]));
    expect(stream.finished()).toBe(true);
  });
});
