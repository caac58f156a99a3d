import { describe, expect, it } from "vitest";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { createMemoryCredentialPersistence } from "../credential-persistence";
import { createConnectorRegistry } from "../registry";
import { describeGenericConnector } from "./generic-connector";

const deps = { persistence: createMemoryCredentialPersistence(), now: () => 0 };
const call = {
  model: "acme-coder-1",
  stream: false,
  clientHeaders: { "user-agent": "claude-cli/2.0.0", "anthropic-beta": "context-1m-2025-08-07" },
};

function acme(overrides: Partial<ConnectorSpec> = {}): ConnectorSpec {
  return {
    id: "acme",
    provider: "acme-coding",
    authType: "apikey",
    protocol: "openai",
    baseUrl: "https://api.acme.example/coding/v1/",
    credential: "acme-key-1",
    ...overrides,
  };
}

const create = (spec: ConnectorSpec) => createConnectorRegistry().create(spec, deps);

describe("generic connectors (a provider id with no connector of its own)", () => {
  it("openai: chat completions with a Bearer key, under the connection's own provider id", () => {
    const connector = create(acme());
    expect(connector).toMatchObject({ provider: "acme-coding", protocol: "openai" });
    expect(connector.prepare(call)).toEqual({
      url: "https://api.acme.example/coding/v1/chat/completions",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "claude-cli/2.0.0",
        authorization: "Bearer acme-key-1",
      },
    });
    expect(connector.usageRequest()).toBeNull();
    expect(connector.signalsProvider).toBeUndefined();
  });

  it("openai-responses: the Responses API with a Bearer key", () => {
    const connector = create(acme({ protocol: "openai-responses" }));
    expect(connector.protocol).toBe("openai-responses");
    expect(connector.prepare(call)).toMatchObject({
      url: "https://api.acme.example/coding/v1/responses",
      headers: { authorization: "Bearer acme-key-1" },
    });
    expect(connector.streamOnly).toBeUndefined();
  });

  it("anthropic: messages with x-api-key and anthropic-version, the client's Anthropic headers forwarded, read as the Anthropic API", () => {
    const connector = create(
      acme({ protocol: "anthropic", baseUrl: "https://api.acme.example/anthropic" }),
    );
    expect(connector.protocol).toBe("anthropic");
    expect(connector.prepare(call)).toEqual({
      url: "https://api.acme.example/anthropic/v1/messages",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "claude-cli/2.0.0",
        "anthropic-beta": "context-1m-2025-08-07",
        "anthropic-version": "2023-06-01",
        "x-api-key": "acme-key-1",
      },
    });
    expect(connector.signalsProvider).toBe("anthropic");
    // A 429 with the Anthropic headers: retry at Retry-After, reset from the spent bucket.
    const failure = connector.classifyFailure(
      429,
      {
        "retry-after": "30",
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2026-11-30T10:00:40Z",
      },
      { type: "error", error: { type: "rate_limit_error", message: "Rate limited" } },
      Date.parse("2026-11-30T10:00:00Z"),
    );
    expect(failure).toMatchObject({
      kind: "rate_limited",
      retryAt: "2026-11-30T10:00:30.000Z",
      resetAt: "2026-11-30T10:00:40.000Z",
      windowId: "rpm",
    });
  });

  it("claims nothing about billing: a keyed connection is the catalog's word, a keyless one cannot bill", () => {
    for (const protocol of ["openai", "anthropic", "openai-responses"] as const) {
      const keyed = create(acme({ protocol }));
      keyed.observeHeaders({ "x-ratelimit-remaining-requests": "10" });
      expect(keyed.billsAfterWindow(), protocol).toBeNull();
      const keyless = create(acme({ protocol, authType: "none", credential: undefined }));
      expect(keyless.billsAfterWindow(), protocol).toBe(false);
      const headers = (keyless.prepare(call) as { headers: Record<string, string> }).headers;
      expect(headers.authorization, protocol).toBeUndefined();
      expect(headers["x-api-key"], protocol).toBeUndefined();
    }
  });

  it("needs baseUrl, and a key unless keyless: errors name the connection, never the key", () => {
    for (const protocol of ["openai", "anthropic", "openai-responses"] as const) {
      expect(() => create(acme({ protocol, baseUrl: undefined }))).toThrow(
        new RegExp(
          `connection acme: provider "acme-coding" has no connector of its own, so the generic ${protocol} connector serves it, and that needs baseUrl`,
        ),
      );
      let error: unknown;
      try {
        create(acme({ protocol, credential: undefined }));
      } catch (e) {
        error = e;
      }
      expect(ConnectorError.isInstance(error), protocol).toBe(true);
      expect((error as ConnectorError).code).toBe("credential_missing");
      expect((error as Error).message).toMatch(/connection acme: authType apikey needs credential/);
    }
  });

  it("says which generic connector serves a connection, for planfirst check", () => {
    expect(describeGenericConnector("openai", false)).toBe(
      "generic openai connector (Bearer key, OpenAI errors and x-ratelimit headers)",
    );
    expect(describeGenericConnector("anthropic", false)).toBe(
      "generic anthropic connector (x-api-key, Anthropic errors and anthropic-ratelimit headers)",
    );
    expect(describeGenericConnector("openai-responses", true)).toBe(
      "generic openai-responses connector (no key, OpenAI errors and x-ratelimit headers)",
    );
  });
});
