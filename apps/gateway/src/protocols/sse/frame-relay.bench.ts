import { bench, describe } from "vitest";
import { codecFor } from "../registry";
import { fixtureText } from "../test-streams";
import { createFrameRelay } from "./frame-relay";

// Same-protocol relay throughput of the hub's frame relay (the gateway's fast path) on a long
// recorded-shape stream (the text fixture's deltas repeated 200 times) fed in 1 KiB chunks.
function longStream(text: string, deltaMarker: string): Uint8Array[] {
  const frames = text.split("\n\n").filter((f) => f !== "");
  const deltas = frames.filter((f) => f.includes(deltaMarker));
  const first = frames.findIndex((f) => f.includes(deltaMarker));
  const body = [
    ...frames.slice(0, first),
    ...Array.from({ length: 200 }, () => deltas).flat(),
    ...frames.slice(first + deltas.length),
  ];
  const bytes = new TextEncoder().encode(`${body.join("\n\n")}\n\n`);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 1024) chunks.push(bytes.subarray(i, i + 1024));
  return chunks;
}

const chat = longStream(fixtureText("openai-chat", "text-stream.sse"), '"content":"');
const messages = longStream(fixtureText("anthropic-messages", "text-stream.sse"), "text_delta");

function drain(
  stream: { push(chunk: Uint8Array): string; flush(): string },
  chunks: Uint8Array[],
): number {
  let length = 0;
  for (const chunk of chunks) length += stream.push(chunk).length;
  return length + stream.flush().length;
}

describe("same-protocol relay, chat stream", () => {
  bench(
    "sse/frame-relay (hub)",
    () => {
      drain(createFrameRelay(codecFor("openai-chat")), chat);
    },
    { time: 4000 },
  );
});

describe("same-protocol relay, Messages stream", () => {
  bench(
    "sse/frame-relay (hub)",
    () => {
      drain(createFrameRelay(codecFor("anthropic-messages")), messages);
    },
    { time: 4000 },
  );
});
