import { bench, describe } from "vitest";
import { codecFor, createFrameRelay } from "../protocols";
import { fixtureText } from "../protocols/test-streams";
import type { RoutedConnection } from "../routing/routing-table";
import type { UpstreamRequest } from "../upstream";
import { redactingStream, redactorFor } from "./redaction";

// What redaction costs the same-protocol fast path: the frame relay alone against the relay
// behind a connection's redactor, on the Messages text fixture's deltas repeated 200 times in
// 1 KiB chunks (no secret in it, the usual case), and the per-request redactor lookup.
const frames = fixtureText("anthropic-messages", "text-stream.sse")
  .split("\n\n")
  .filter((frame) => frame !== "");
const first = frames.findIndex((frame) => frame.includes("text_delta"));
const deltas = frames.filter((frame) => frame.includes("text_delta"));
const bytes = new TextEncoder().encode(
  `${[
    ...frames.slice(0, first),
    ...Array.from({ length: 200 }, () => deltas).flat(),
    ...frames.slice(first + deltas.length),
  ].join("\n\n")}\n\n`,
);
const chunks: Uint8Array[] = [];
for (let i = 0; i < bytes.length; i += 1024) chunks.push(bytes.subarray(i, i + 1024));

const SECRET = "sk-ant-oat01-bench-secret-value-0123456789abcdef";
const connection = { credential: SECRET } as RoutedConnection;
const sent: UpstreamRequest = {
  url: "http://127.0.0.1:1/v1/messages",
  headers: { authorization: `Bearer ${SECRET}` },
  body: "{}",
  timeoutMs: 1000,
};

function drain(stream: { push(chunk: Uint8Array): string; flush(): string }): number {
  let length = 0;
  for (const chunk of chunks) length += stream.push(chunk).length;
  return length + stream.flush().length;
}

describe("same-protocol relay, Messages stream", () => {
  bench(
    "frame relay",
    () => {
      drain(createFrameRelay(codecFor("anthropic-messages")));
    },
    { time: 3000 },
  );
  bench(
    "frame relay behind the connection's redactor",
    () => {
      drain(
        redactingStream(
          createFrameRelay(codecFor("anthropic-messages")),
          redactorFor(connection, sent),
        ),
      );
    },
    { time: 3000 },
  );
});

describe("per-request redactor lookup", () => {
  bench(
    "redactorFor (cached)",
    () => {
      redactorFor(connection, sent);
    },
    { time: 1000 },
  );
});
