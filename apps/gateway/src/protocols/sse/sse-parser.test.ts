import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SseEvent } from "../types";
import { formatSse } from "./sse-format";
import { createSseParser } from "./sse-parser";

function parseAll(chunks: (string | Uint8Array)[]): SseEvent[] {
  const parser = createSseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return [...events, ...parser.flush()];
}

const anthropicFixture = readFileSync(
  new URL("../anthropic-messages/__fixtures__/tool-stream.sse", import.meta.url),
  "utf8",
);

describe("createSseParser", () => {
  it("parses named events and joins multi-line data with LF", () => {
    expect(parseAll(["event: a\ndata: one\ndata: two\n\ndata:three\n\n"])).toEqual([
      { event: "a", data: "one\ntwo" },
      { data: "three" },
    ]);
  });

  it("accepts CRLF and lone CR line ends, even with CRLF split across chunks", () => {
    expect(parseAll(["data: x\r", "\n\r", "\ndata: y\r\r"])).toEqual([
      { data: "x" },
      { data: "y" },
    ]);
  });

  it("ignores comments, id and retry fields, and events without data", () => {
    expect(parseAll([": keep-alive\n\nid: 7\nretry: 10\nevent: empty\n\ndata: kept\n\n"])).toEqual([
      { data: "kept" },
    ]);
  });

  it("keeps a UTF-8 character split between byte chunks whole", () => {
    const bytes = new TextEncoder().encode('data: {"text":"héllo 🌍"}\n\n');
    const splitAt = bytes.indexOf(0xf0) + 2;
    expect(parseAll([bytes.slice(0, splitAt), bytes.slice(splitAt)])).toEqual([
      { data: '{"text":"héllo 🌍"}' },
    ]);
  });

  it("drops one leading byte-order mark from bytes, even split across chunks, and no more", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("data: x\n\n")]);
    expect(parseAll([bytes.slice(0, 1), bytes.slice(1)])).toEqual([{ data: "x" }]);
    // A second U+FEFF is text: the first line's field is then "\ufeffdata", not "data".
    const twice = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    expect(parseAll([twice])).toEqual([]);
  });

  it("flush returns a final event that lacks its blank line", () => {
    expect(parseAll(["data: [DONE]"])).toEqual([{ data: "[DONE]" }]);
  });

  it("parses a recorded Anthropic stream into its events", () => {
    const events = parseAll([anthropicFixture]);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("any split of a stream into byte chunks parses to the same events (fuzz)", () => {
    const streamArb = fc
      .array(
        fc.record({
          event: fc.option(fc.constantFrom("message_start", "content_block_delta", "ping"), {
            nil: undefined,
          }),
          data: fc.string({ unit: "grapheme", minLength: 1 }).filter((s) => !/[\r\n]/.test(s)),
        }),
        { minLength: 1, maxLength: 8 },
      )
      .chain((events) =>
        fc.record({
          events: fc.constant(events),
          lineEnd: fc.constantFrom("\n", "\r\n", "\r"),
          cuts: fc.array(fc.nat(), { maxLength: 12 }),
        }),
      );
    fc.assert(
      fc.property(streamArb, ({ events, lineEnd, cuts }) => {
        const text = events
          .map(
            (e) =>
              `${e.event ? `event: ${e.event}${lineEnd}` : ""}data: ${e.data}${lineEnd}${lineEnd}`,
          )
          .join(`: comment${lineEnd}`);
        const bytes = new TextEncoder().encode(text);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let start = 0;
        for (const point of [...points, bytes.length]) {
          chunks.push(bytes.slice(start, point));
          start = point;
        }
        const expected = events.map((e) =>
          e.event ? { event: e.event, data: e.data } : { data: e.data },
        );
        expect(parseAll(chunks)).toEqual(expected);
        expect(parseAll([text])).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("formatSse", () => {
  it("writes event and data lines that parse back to the same event", () => {
    const event = { event: "message_delta", data: "line one\nline two" };
    expect(formatSse(event)).toBe("event: message_delta\ndata: line one\ndata: line two\n\n");
    expect(parseAll([formatSse(event)])).toEqual([event]);
    expect(formatSse({ data: "[DONE]" })).toBe("data: [DONE]\n\n");
  });
});
