import { EVIDENCE_REWRITE_INTERVAL_MS } from "@planfirst/quota-cache";
import { describe, expect, it } from "vitest";
import { createAnthropicConnector } from "./anthropic/anthropic-connector";
import { createClaudeOauthConnector } from "./claude-oauth/claude-oauth-connector";
import { ConnectorError } from "./connector-error";
import { createMemoryCredentialPersistence } from "./credential-persistence";
import { createOpenAiCompatibleConnector } from "./openai-compatible/openai-compatible-connector";
import { createOpenRouterConnector } from "./openrouter/openrouter-connector";

const call = { model: "m", stream: false };
const deps = { persistence: createMemoryCredentialPersistence(), now: () => 0 };

describe("anthropic connector (x-api-key)", () => {
  it("sends the key as x-api-key, forwards the client's betas, and config headers cannot override auth", () => {
    const c = createAnthropicConnector({
      id: "a",
      provider: "anthropic",
      authType: "apikey",
      baseUrl: "https://api.anthropic.com/v1",
      headers: { "X-Api-Key": "from-config", "x-team": "blue" },
      credential: "sk-ant-api-1",
    });
    const prepared = c.prepare({
      ...call,
      clientHeaders: {
        "anthropic-beta": "interleaved-thinking-2025-05-14",
        "user-agent": "claude-cli/2.0.0",
      },
    });
    expect(prepared).toEqual({
      url: "https://api.anthropic.com/v1/messages",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "claude-cli/2.0.0",
        "anthropic-beta": "interleaved-thinking-2025-05-14",
        "anthropic-version": "2023-06-01",
        "x-team": "blue",
        "x-api-key": "sk-ant-api-1",
      },
    });
  });

  it("needs a key", () => {
    expect(() =>
      createAnthropicConnector({ id: "a", provider: "anthropic", authType: "apikey" }),
    ).toThrow(ConnectorError);
  });
});

describe("claude-oauth connector (Bearer + oauth beta)", () => {
  it("merges the OAuth beta into the client's betas once, and polls /api/oauth/usage", async () => {
    const c = createClaudeOauthConnector(
      { id: "max", provider: "claude", authType: "oauth", credential: "sk-ant-oat01-x" },
      deps,
    );
    const prepared = c.prepare({
      ...call,
      clientHeaders: {
        "anthropic-beta": "oauth-2025-04-20,fine-grained-tool-streaming-2025-05-14",
      },
    });
    expect(prepared).toMatchObject({
      headers: {
        authorization: "Bearer sk-ant-oat01-x",
        "anthropic-beta": "oauth-2025-04-20,fine-grained-tool-streaming-2025-05-14",
      },
    });
    expect(await c.usageRequest()).toMatchObject({
      url: "https://api.anthropic.com/api/oauth/usage",
      headers: { "anthropic-beta": "oauth-2025-04-20" },
    });
  });

  it("reads extra-usage (overage) headers as billing evidence", () => {
    const c = createClaudeOauthConnector(
      { id: "max", provider: "claude", authType: "oauth", credential: "sk-ant-oat01-x" },
      deps,
    );
    const read = c.readResponse({
      status: 200,
      headers: {
        "anthropic-ratelimit-unified-status": "allowed",
        "anthropic-ratelimit-unified-5h-utilization": "0.4",
        "anthropic-ratelimit-unified-5h-reset": "1790000000",
        "anthropic-ratelimit-unified-overage-status": "allowed",
      },
      observedAtMs: 1_789_990_000_000,
    });
    expect(read.windows).toEqual([
      expect.objectContaining({ windowId: "5h", remainingPercent: 60 }),
    ]);
    expect(read.evidence).toMatchObject({ evidence: "on", source: "claude-header" });
    // An answer without a quota header is read without parsing, and says nothing.
    expect(c.readResponse({ status: 200, headers: {}, observedAtMs: 0 })).toEqual({ windows: [] });
  });
});

describe("each connector reads its own answers, whatever the provider id says", () => {
  const unified = {
    "anthropic-ratelimit-unified-status": "allowed",
    "anthropic-ratelimit-unified-5h-utilization": "0.25",
    "anthropic-ratelimit-unified-5h-reset": "1790000000",
  };
  const apiBuckets = {
    "anthropic-ratelimit-requests-limit": "50",
    "anthropic-ratelimit-requests-remaining": "10",
    "anthropic-ratelimit-requests-reset": "2026-09-21T10:00:40Z",
  };
  const observedAtMs = 1_789_990_000_000;

  it("a Claude login under the id anthropic reads the unified headers (quota-signals.md §2a)", () => {
    const login = createClaudeOauthConnector(
      { id: "max", provider: "anthropic", authType: "oauth", credential: "sk-ant-oat01-x" },
      deps,
    );
    const read = login.readResponse({ status: 200, headers: unified, observedAtMs });
    expect(read.windows).toEqual([
      expect.objectContaining({ windowId: "5h", remainingPercent: 75 }),
    ]);
  });

  it("an Anthropic key under the id claude reads the API buckets and bills every request (quota-signals.md §1)", () => {
    const key = createAnthropicConnector({
      id: "k",
      provider: "claude",
      authType: "apikey",
      credential: "sk-ant-api-1",
    });
    const read = key.readResponse({ status: 200, headers: apiBuckets, observedAtMs });
    expect(read.windows).toEqual([
      expect.objectContaining({ windowId: "rpm", remainingPercent: 20 }),
    ]);
    expect(read.evidence).toMatchObject({ evidence: "on", source: "credits" });
  });
});

describe("openai-compatible and openrouter connectors", () => {
  it("keyless servers get no auth header; keyed ones Bearer", () => {
    const keyless = createOpenAiCompatibleConnector({
      id: "local",
      provider: "ollama",
      authType: "none",
      baseUrl: "http://127.0.0.1:11434/v1/",
    });
    const prepared = keyless.prepare(call) as { url: string; headers: Record<string, string> };
    expect(prepared.url).toBe("http://127.0.0.1:11434/v1/chat/completions");
    expect(prepared.headers.authorization).toBeUndefined();
    expect(keyless.usageRequest()).toBeNull();
    expect(
      keyless.readResponse({
        status: 200,
        headers: { "x-ratelimit-remaining-requests": "1" },
        observedAtMs: 0,
      }).evidence,
    ).toBeUndefined();
    expect(() =>
      createOpenAiCompatibleConnector({
        id: "g",
        provider: "groq",
        authType: "apikey",
        baseUrl: "https://x.test/v1",
      }),
    ).toThrow(/authType apikey needs credential/);
  });

  it("openrouter polls /api/v1/key and classifies a 402 as credits exhausted", () => {
    const c = createOpenRouterConnector({
      id: "or",
      provider: "openrouter",
      authType: "apikey",
      credential: "sk-or-1",
    });
    expect(c.prepare(call)).toMatchObject({
      url: "https://openrouter.ai/api/v1/chat/completions",
      headers: { authorization: "Bearer sk-or-1" },
    });
    expect(c.usageRequest()).toMatchObject({ url: "https://openrouter.ai/api/v1/key" });
    const read = c.readResponse({
      status: 402,
      headers: {},
      body: { error: { code: 402, message: "Insufficient credits" } },
      observedAtMs: 0,
    });
    expect(read.failure?.kind).toBe("credits_exhausted");
    expect(read.evidence).toMatchObject({ evidence: "on", source: "credits" });
  });

  it("a metered key's evidence `on` is one object per rewrite interval, so the gateway records a repeat once", () => {
    const c = createOpenRouterConnector({
      id: "or",
      provider: "openrouter",
      authType: "apikey",
      credential: "sk-or-1",
    });
    const at = (observedAtMs: number) =>
      c.readResponse({ status: 200, headers: {}, observedAtMs }).evidence;
    const first = at(1_000);
    expect(first).toMatchObject({ evidence: "on", observedAt: new Date(1_000).toISOString() });
    expect(at(1_000 + EVIDENCE_REWRITE_INTERVAL_MS - 1)).toBe(first);
    expect(c.readUsage({ data: {} }, 2_000).evidence).toBe(first);
    const next = at(1_000 + EVIDENCE_REWRITE_INTERVAL_MS);
    expect(next).not.toBe(first);
    expect(next?.observedAt).toBe(new Date(1_000 + EVIDENCE_REWRITE_INTERVAL_MS).toISOString());
  });
});
