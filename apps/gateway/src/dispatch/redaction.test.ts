import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codecFor, createFrameRelay } from "../protocols";
import type { RoutedConnection } from "../routing/routing-table";
import type { UpstreamRequest } from "../upstream";
import { redactingStream, redactorFor } from "./redaction";

const STATIC = "sk-or-v1-static-key-0123456789";
const EXCHANGED = "tid=copilot-exchanged-token-abcdef";

function connection(credential: string | null): RoutedConnection {
  // Only `credential` is read; the rest of a routed connection does not matter here.
  return { credential } as RoutedConnection;
}

function sentWith(headers: Record<string, string>): UpstreamRequest {
  return { url: "http://127.0.0.1:1/v1/chat/completions", headers, body: "{}", timeoutMs: 1000 };
}

describe("redactorFor", () => {
  it("hides the static credential and the token actually sent, and reuses the redactor while the token stays", () => {
    const routed = connection(STATIC);
    const sent = sentWith({ authorization: `Bearer ${EXCHANGED}` });
    const redactor = redactorFor(routed, sent);
    expect(redactor.redact(`a ${STATIC} b Bearer ${EXCHANGED}`)).toBe(
      "a [redacted] b Bearer [redacted]",
    );
    expect(redactorFor(routed, sentWith({ authorization: `Bearer ${EXCHANGED}` }))).toBe(redactor);

    // A refreshed token: a new redactor that knows it.
    const refreshed = "tid=copilot-refreshed-token-999999";
    const next = redactorFor(routed, sentWith({ authorization: `Bearer ${refreshed}` }));
    expect(next).not.toBe(redactor);
    expect(next.redact(`${refreshed} ${STATIC}`)).toBe("[redacted] [redacted]");
  });

  it("reads an x-api-key credential", () => {
    const redactor = redactorFor(connection(null), sentWith({ "x-api-key": EXCHANGED }));
    expect(redactor.redact(`x-api-key: ${EXCHANGED}`)).toBe("x-api-key: [redacted]");
  });

  it("gives a keyless connection the empty redactor", () => {
    const redactor = redactorFor(
      connection(null),
      sentWith({ "content-type": "application/json" }),
    );
    expect(redactor.empty).toBe(true);
    expect(redactor.redact("nothing to hide here")).toBe("nothing to hide here");
  });
});

describe("redactingStream over the frame relay", () => {
  const frames = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"key ${STATIC} é"}}\n\n`,
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ];
  const upstream = Buffer.from(frames.join(""), "utf8");

  /** The client text for `bytes` cut at `cuts`, through a redacting relay. */
  function relay(bytes: Uint8Array, cuts: number[]): string {
    const redactor = redactorFor(
      connection(STATIC),
      sentWith({ authorization: `Bearer ${STATIC}` }),
    );
    const stream = redactingStream(createFrameRelay(codecFor("anthropic-messages")), redactor);
    let out = "";
    let from = 0;
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      out += stream.push(bytes.subarray(from, cut));
      from = cut;
    }
    out += stream.push(bytes.subarray(from));
    return out + stream.flush();
  }

  it("catches the secret at any cut of the upstream bytes and changes nothing else", () => {
    const expected = frames.join("").replace(STATIC, "[redacted]");
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: upstream.length }), { maxLength: 6 }),
        (cuts) => {
          expect(relay(upstream, cuts)).toBe(expected);
        },
      ),
    );
  });

  it("relays a stream with no secret in it byte for byte", () => {
    const clean = Buffer.from(frames.join("").replace(STATIC, "nothing secret"), "utf8");
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: clean.length }), { maxLength: 6 }), (cuts) => {
        expect(relay(clean, cuts)).toBe(clean.toString("utf8"));
      }),
    );
  });
});
