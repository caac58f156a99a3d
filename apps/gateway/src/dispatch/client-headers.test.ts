import { describe, expect, it } from "vitest";
import type { UpstreamRequest } from "../upstream";
import { mergeBetas, pickClientHeaders, withClientHeaders } from "./client-headers";
import type { ClientRequest } from "./types";

const upstream: UpstreamRequest = {
  url: "https://api.anthropic.com/v1/messages",
  headers: { authorization: "Bearer sk-ant-oat01-x", "anthropic-beta": "oauth-2025-04-20" },
  body: "{}",
  timeoutMs: 1000,
};

function request(extra: Partial<ClientRequest>): ClientRequest {
  return {
    protocol: "anthropic",
    api: "anthropic-messages",
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

  it("adds ?beta=true and the client's headers on Anthropic upstreams only, leaving auth alone", () => {
    const client = request({
      clientHeaders: {
        "anthropic-beta": "claude-code-20250219",
        "anthropic-version": "2023-06-01",
      },
      query: "beta=true",
    });
    const sent = withClientHeaders(upstream, client, true);
    expect(sent.url).toBe("https://api.anthropic.com/v1/messages?beta=true");
    expect(sent.headers).toEqual({
      authorization: "Bearer sk-ant-oat01-x",
      "anthropic-beta": "oauth-2025-04-20,claude-code-20250219",
      "anthropic-version": "2023-06-01",
    });
    expect(upstream.headers["anthropic-beta"]).toBe("oauth-2025-04-20");
    expect(withClientHeaders(upstream, client, false)).toBe(upstream);
  });
});
