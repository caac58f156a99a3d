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
    expect(c.billsAfterWindow()).toBeNull();
    c.observeHeaders({
      "anthropic-ratelimit-unified-status": "allowed",
      "anthropic-ratelimit-unified-5h-utilization": "0.4",
      "anthropic-ratelimit-unified-5h-reset": "1790000000",
      "anthropic-ratelimit-unified-overage-status": "allowed",
    });
    expect(c.billsAfterWindow()).toBe(true);
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
    expect(keyless.billsAfterWindow()).toBe(false);
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
    expect(
      c.classifyFailure(402, {}, { error: { code: 402, message: "Insufficient credits" } }, 0)
        ?.kind,
    ).toBe("credits_exhausted");
  });
});
