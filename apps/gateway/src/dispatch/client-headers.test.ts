import { describe, expect, it } from "vitest";
import { createClaudeOauthConnector } from "../connectors/claude-oauth/claude-oauth-connector";
import { createCodexConnector } from "../connectors/codex/codex-connector";
import { createMemoryCredentialPersistence } from "../connectors/credential-persistence";
import { createOpenAiCompatibleConnector } from "../connectors/openai-compatible/openai-compatible-connector";
import { codecFor } from "../protocols";
import type { UpstreamRequest } from "../upstream";
import {
  clientHeaderNames,
  pickClientHeaders,
  pickClientQuery,
  withClientQuery,
} from "./client-headers";
import type { ClientRequest } from "./types";

const deps = { persistence: createMemoryCredentialPersistence(), now: () => 0 };
const claude = createClaudeOauthConnector(
  { id: "max", provider: "claude", authType: "oauth", credential: "sk-ant-oat01-x" },
  deps,
);
const codex = createCodexConnector(
  { id: "chatgpt", provider: "codex", authType: "oauth", credential: "codex-access-token" },
  deps,
);
const local = createOpenAiCompatibleConnector({
  id: "local",
  provider: "ollama",
  authType: "none",
  baseUrl: "http://127.0.0.1:11434/v1",
});

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

const sent: Record<string, string> = {
  authorization: "Bearer pf-client",
  "x-api-key": "pf-client",
  "anthropic-beta": "claude-code-20250219",
  "x-claude-code-session-id": "s",
  originator: "codex_cli_rs",
  "user-agent": "claude-cli/2.1.48",
};

describe("client headers", () => {
  it("keeps what the connections' connectors forward and the user agent, never a credential", () => {
    const names = clientHeaderNames([claude, codex, local]);
    expect(names).toContain("x-claude-code-session-id");
    expect(names).toContain("originator");
    expect(pickClientHeaders(names, (name) => sent[name])).toEqual({
      "anthropic-beta": "claude-code-20250219",
      "x-claude-code-session-id": "s",
      originator: "codex_cli_rs",
      "user-agent": "claude-cli/2.1.48",
    });
    expect(pickClientHeaders(names, () => undefined)).toBeUndefined();
  });

  it("keeps only the user agent when no connector forwards more", () => {
    const names = clientHeaderNames([local]);
    expect(names).toEqual(["user-agent"]);
    expect(pickClientHeaders(names, (name) => sent[name])).toEqual({
      "user-agent": "claude-cli/2.1.48",
    });
  });

  it("keeps only the query parameters a wire forwards, with exactly their value", () => {
    const query = (params: Record<string, string>) => ({ get: (name: string) => params[name] });
    expect(pickClientQuery(query({ beta: "true", debug: "1" }))).toBe("beta=true");
    expect(pickClientQuery(query({ beta: "1" }))).toBeUndefined();
    expect(pickClientQuery(undefined)).toBeUndefined();
  });

  it("adds ?beta=true on Anthropic upstreams only, leaving the headers alone", () => {
    const messages = codecFor("anthropic-messages").forwarding;
    const client = request({ query: "beta=true" });
    const withQuery = withClientQuery(upstream, client, messages);
    expect(withQuery.url).toBe("https://api.anthropic.com/v1/messages?beta=true");
    expect(withQuery.headers).toBe(upstream.headers);
    expect(withClientQuery({ ...upstream, url: `${upstream.url}?x=1` }, client, messages).url).toBe(
      "https://api.anthropic.com/v1/messages?x=1&beta=true",
    );
    expect(withClientQuery(upstream, client, codecFor("openai-chat").forwarding)).toBe(upstream);
    expect(withClientQuery(upstream, request({}), messages)).toBe(upstream);
    // Only the parameters the wire forwards reach it.
    const mixed = withClientQuery(upstream, request({ query: "beta=true&other=1" }), messages);
    expect(mixed.url).toBe("https://api.anthropic.com/v1/messages?beta=true");
  });
});
