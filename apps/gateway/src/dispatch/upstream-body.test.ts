import { describe, expect, it } from "vitest";
import type { ClientRequest } from "./types";
import { type UpstreamBody, upstreamBodyFor } from "./upstream-body";

function wholeChatRequest(): ClientRequest {
  return {
    protocol: "openai-chat",
    body: { model: "auto/thrifty", messages: [{ role: "user", content: "hi" }] },
    modelId: "auto/thrifty",
    stream: false,
    client: { id: "k", connections: null },
    requestId: "r",
    signal: undefined,
  };
}

const streamOf = (body: UpstreamBody) => (JSON.parse(body.text) as { stream?: unknown }).stream;

describe("upstream bodies of one request", () => {
  it("a body asked of a streams-only upstream is never reused for one that answers whole", () => {
    const request = wholeChatRequest();
    const bodies = new Map<string, UpstreamBody>();
    for (const protocol of ["openai-responses", "openai-chat"] as const) {
      const collected = upstreamBodyFor(request, protocol, "gpt-5-codex", true, bodies);
      const whole = upstreamBodyFor(request, protocol, "gpt-5-codex", false, bodies);
      expect(streamOf(collected), protocol).toBe(true);
      expect(streamOf(whole), protocol).not.toBe(true);
      // A fall-through to the same shape still encodes once.
      expect(upstreamBodyFor(request, protocol, "gpt-5-codex", true, bodies)).toBe(collected);
    }
  });
});
