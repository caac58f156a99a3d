import { describe, expect, it } from "vitest";
import type { ProtocolName } from "../protocols";
import { ConnectorError } from "./connector-error";
import { createMemoryCredentialPersistence } from "./credential-persistence";
import { createConnectorRegistry } from "./registry";

const deps = { persistence: createMemoryCredentialPersistence(), now: () => 0 };

describe("connector registry", () => {
  it("chooses by provider and auth type: a Claude login and a Claude key are different connectors", () => {
    const registry = createConnectorRegistry();
    const login = registry.create(
      { id: "max", provider: "claude", authType: "oauth", credential: "sk-ant-oat-1" },
      deps,
    );
    const key = registry.create(
      { id: "api", provider: "claude", authType: "apikey", credential: "sk-ant-api-1" },
      deps,
    );
    const call = { model: "claude-sonnet-4-5", stream: false };
    expect(login.prepare(call)).toMatchObject({
      url: "https://api.anthropic.com/v1/messages",
      headers: { authorization: "Bearer sk-ant-oat-1", "anthropic-beta": "oauth-2025-04-20" },
    });
    expect(key.prepare(call)).toMatchObject({ headers: { "x-api-key": "sk-ant-api-1" } });
    expect(
      registry.create(
        {
          id: "g",
          provider: "GROQ",
          authType: "apikey",
          baseUrl: "https://api.groq.com/openai/v1",
          credential: "k",
        },
        deps,
      ).protocol,
    ).toBe("openai-chat");
  });

  it("names the connection, the providers with a connector of their own and the generic protocols when none serves it", () => {
    const registry = createConnectorRegistry();
    let error: unknown;
    try {
      registry.create(
        {
          id: "mystery",
          provider: "acme-llm",
          authType: "oauth",
          protocol: "gemini",
          baseUrl: "https://acme.example/v1",
          credential: "k",
        },
        deps,
      );
    } catch (e) {
      error = e;
    }
    expect(ConnectorError.isInstance(error)).toBe(true);
    expect((error as ConnectorError).code).toBe("unknown_provider");
    expect((error as Error).message).toMatch(
      /mystery.*"acme-llm".*protocol "gemini" has no generic connector.*codex.*github-copilot.*zai.*generic connectors: openai, anthropic, openai-responses/,
    );
    expect(registry.has("acme-llm", "oauth", "gemini")).toBe(false);
    expect(registry.has("acme-llm", "oauth", "openai-chat")).toBe(true);
  });

  it("looks up provider/authType, then provider, then the protocol's generic connector", () => {
    const registry = createConnectorRegistry();
    const choose = (provider: string, authType: string, protocol: ProtocolName) =>
      registry.choose({ provider, authType, protocol });
    expect(choose("Claude", "OAuth", "anthropic-messages")).toEqual({
      kind: "own",
      key: "claude/oauth",
    });
    expect(choose("zai", "apikey", "anthropic-messages")).toEqual({ kind: "own", key: "zai" });
    expect(choose("acme-coding", "apikey", "openai-chat")).toEqual({
      kind: "generic",
      protocol: "openai-chat",
    });
    // The ids the OpenAI-compatible connector always served are now the generic openai one's.
    for (const id of ["openai", "groq", "deepseek", "ollama", "vllm"]) {
      expect(choose(id, "apikey", "openai-chat"), id).toEqual({
        kind: "generic",
        protocol: "openai-chat",
      });
    }
    expect(registry.known()).not.toContain("groq");
    // A spec that names no wire speaks chat completions.
    expect(registry.choose({ provider: "groq", authType: "apikey" })).toEqual({
      kind: "generic",
      protocol: "openai-chat",
    });
  });

  it("takes extra connectors, which win over built-ins on the same key", () => {
    const registry = createConnectorRegistry({
      "acme-llm": (spec, d) => createConnectorRegistry().create({ ...spec, provider: "openai" }, d),
    });
    expect(registry.has("acme-llm", "apikey")).toBe(true);
    expect(registry.known()).toContain("acme-llm");
  });
});
