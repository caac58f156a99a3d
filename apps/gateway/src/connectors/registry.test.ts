import { describe, expect, it } from "vitest";
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
    ).toBe("openai");
  });

  it("names the connection and lists the known providers for an unknown one", () => {
    const registry = createConnectorRegistry();
    let error: unknown;
    try {
      registry.create(
        { id: "mystery", provider: "acme-llm", authType: "apikey", credential: "k" },
        deps,
      );
    } catch (e) {
      error = e;
    }
    expect(ConnectorError.isInstance(error)).toBe(true);
    expect((error as ConnectorError).code).toBe("unknown_provider");
    expect((error as Error).message).toMatch(
      /mystery.*"acme-llm".*known: .*codex.*github-copilot.*zai/,
    );
    expect(registry.has("acme-llm", "apikey")).toBe(false);
  });

  it("takes extra connectors, which win over built-ins on the same key", () => {
    const registry = createConnectorRegistry({
      "acme-llm": (spec, d) => createConnectorRegistry().create({ ...spec, provider: "openai" }, d),
    });
    expect(registry.has("acme-llm", "apikey")).toBe(true);
    expect(registry.known()).toContain("acme-llm");
  });
});
