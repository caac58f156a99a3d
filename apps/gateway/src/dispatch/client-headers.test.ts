import { describe, expect, it } from "vitest";
import { codecFor } from "../protocols";
import type { UpstreamRequest } from "../upstream";
import {
  mergeBetas,
  pickClientHeaders,
  pickClientQuery,
  withClientHeaders,
} from "./client-headers";
import type { ClientRequest } from "./types";

const upstream: UpstreamRequest = {
  url: "https://api.anthropic.com/v1/messages",
  headers: { authorization: "Bearer sk-ant-oat01-x", "anthropic-beta": "oauth-2025-04-20" },
  body: "{}",
  timeoutMs: 1000,
};

function request(extra: Partial<ClientRequest>): ClientRequest {
  return {
    protocol: "anthropic-messages",
    body: {},
    modelId: "m",
    stream: true,
    client: { id: "k" } as ClientRequest["client"],
    requestId: "r",
    signal: undefined,
    ...extra,
  };
}

describe("client headers", () => {
  it("keeps only the forwarded headers, never a credential", () => {
    const all: Record<string, string> = {
      authorization: "Bearer pf-client",
      "x-api-key": "pf-client",
      "anthropic-beta": "claude-code-20250219",
      "x-claude-code-session-id": "s",
      "user-agent": "claude-cli/2.1.48",
    };
    expect(pickClientHeaders((name) => all[name])).toEqual({
      "anthropic-beta": "claude-code-20250219",
      "x-claude-code-session-id": "s",
      "user-agent": "claude-cli/2.1.48",
    });
    expect(pickClientHeaders(() => undefined)).toBeUndefined();
  });

  it("merges beta lists without duplicates, the connection's first", () => {
    expect(mergeBetas("oauth-2025-04-20", "a, oauth-2025-04-20,b,a")).toBe("oauth-2025-04-20,a,b");
    expect(mergeBetas(undefined, "a")).toBe("a");
  });

  it("keeps only the query parameters a wire forwards, with exactly their value", () => {
    const query = (params: Record<string, string>) => ({ get: (name: string) => params[name] });
    expect(pickClientQuery(query({ beta: "true", debug: "1" }))).toBe("beta=true");
    expect(pickClientQuery(query({ beta: "1" }))).toBeUndefined();
    expect(pickClientQuery(undefined)).toBeUndefined();
  });

  it("adds ?beta=true and the client's headers on Anthropic upstreams only, leaving auth alone", () => {
    const client = request({
      clientHeaders: {
        "anthropic-beta": "claude-code-20250219",
        "anthropic-version": "2023-06-01",
      },
      query: "beta=true",
    });
    const messages = codecFor("anthropic-messages").forwarding;
    const sent = withClientHeaders(upstream, client, messages);
    expect(sent.url).toBe("https://api.anthropic.com/v1/messages?beta=true");
    expect(sent.headers).toEqual({
      authorization: "Bearer sk-ant-oat01-x",
      "anthropic-beta": "oauth-2025-04-20,claude-code-20250219",
      "anthropic-version": "2023-06-01",
    });
    expect(upstream.headers["anthropic-beta"]).toBe("oauth-2025-04-20");
    expect(withClientHeaders(upstream, client, codecFor("openai-chat").forwarding)).toBe(upstream);
    // Only the parameters the wire forwards reach it.
    const mixed = withClientHeaders(upstream, request({ query: "beta=true&other=1" }), messages);
    expect(mixed.url).toBe("https://api.anthropic.com/v1/messages?beta=true");
  });
});
