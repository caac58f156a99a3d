import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSseParser } from "./sse";
import { createStreamBridge } from "./stream-bridge";
import { createStreamRelay } from "./stream-relay";
import type { WireProtocol } from "./types";

const OPTIONS = { model: "served-model", nowMs: Date.parse("2025-09-11T09:16:11Z") };
const encoder = new TextEncoder();

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
}

interface Outcome {
  text: string;
  usage: unknown;
  finished: boolean;
  upstreamError: unknown;
}

/** The reference: every event through the SSE parser, then the bridge. */
function viaParser(upstream: WireProtocol, client: WireProtocol, chunks: Uint8Array[]): Outcome {
  const bridge = createStreamBridge(upstream, client, OPTIONS);
  const parser = createSseParser();
  let text = "";
  for (const chunk of chunks) for (const event of parser.push(chunk)) text += bridge.push(event);
  for (const event of parser.flush()) text += bridge.push(event);
  return {
    text,
    usage: bridge.usage(),
    finished: bridge.finished(),
    upstreamError: bridge.upstreamError(),
  };
}

function viaRelay(upstream: WireProtocol, client: WireProtocol, chunks: Uint8Array[]): Outcome {
  const relay = createStreamRelay(upstream, client, OPTIONS);
  let text = "";
  for (const chunk of chunks) text += relay.push(chunk);
  text += relay.flush();
  const { bridge } = relay;
  return {
    text,
    usage: bridge.usage(),
    finished: bridge.finished(),
    upstreamError: bridge.upstreamError(),
  };
}

/** `bytes` cut at the given offsets (anywhere, inside a UTF-8 sequence or a CRLF included). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort(
    (a, b) => a - b,
  );
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

const PAIRS: [WireProtocol, WireProtocol, string][] = [
  ["openai", "openai", "openai-text-stream.sse"],
  ["openai", "openai", "openai-tool-stream.sse"],
  ["anthropic", "anthropic", "anthropic-text-stream.sse"],
  ["anthropic", "anthropic", "anthropic-tool-stream.sse"],
  ["openai", "anthropic", "openai-tool-stream.sse"],
  ["anthropic", "openai", "anthropic-tool-stream.sse"],
];

/** Frames in shapes the relay leaves to the parser, spliced into a recorded stream. */
const ODD_FRAMES = [
  ": keep-alive\n\n",
  'data:{"id":"x","choices":[{"index":0,"delta":{"content":"no space"}}]}\n\n',
  'data: {"id":"x","choices":[{"index":0,"delta":{"content":"crlf"}}]}\r\n\r\n',
  'event: ping\r\ndata: {"type":"ping"}\r\n\r\n',
  'id: 7\ndata: {"id":"x","choices":[]}\n\n',
  'data: {"a":1,\ndata: "b":2}\n\n',
  "\n",
  "\uFEFFdata: {}\n\n",
  'data: {"choices":[{"index":0,"delta":{"content":"é ✓ 😀"}}]}\n\n',
];

describe("createStreamRelay", () => {
  it("gives the parser-and-bridge output, usage and end for recorded streams cut anywhere", () => {
    for (const [upstream, client, name] of PAIRS) {
      const bytes = encoder.encode(fixture(name));
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 12 }), (offsets) => {
          const chunks = cut(bytes, offsets);
          expect(viaRelay(upstream, client, chunks)).toEqual(viaParser(upstream, client, chunks));
        }),
        { numRuns: 60 },
      );
    }
  });

  it("gives the same output when frames in other shapes appear anywhere in the stream", () => {
    for (const [upstream, client, name] of PAIRS) {
      const frames = fixture(name).split(/(?<=\n\n)/);
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.nat(), fc.constantFrom(...ODD_FRAMES)), { maxLength: 3 }),
          fc.array(fc.nat(), { maxLength: 8 }),
          fc.boolean(),
          (inserts, offsets, leadingBom) => {
            const mixed = [...frames];
            for (const [at, frame] of inserts) mixed.splice(at % (mixed.length + 1), 0, frame);
            const text = (leadingBom ? "\uFEFF" : "") + mixed.join("");
            const chunks = cut(encoder.encode(text), offsets);
            expect(viaRelay(upstream, client, chunks)).toEqual(viaParser(upstream, client, chunks));
          },
        ),
        { numRuns: 60 },
      );
    }
  });

  it("copies a same-protocol stream byte for byte and still accounts its usage", () => {
    const text = fixture("openai-text-stream.sse");
    const relay = createStreamRelay("openai", "openai", OPTIONS);
    const out = relay.push(encoder.encode(text)) + relay.flush();
    expect(out).toBe(text);
    expect(relay.bridge.finished()).toBe(true);
    expect(relay.bridge.usage()).not.toBeNull();
  });
});
