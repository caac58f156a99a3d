import { describe, expect, it } from "vitest";
import { configNameOf } from "../../protocols";
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
    protocol: "openai-chat",
    baseUrl: "https://api.acme.example/coding/v1/",
    credential: "acme-key-1",
    ...overrides,
  };
}

const create = (spec: ConnectorSpec) => createConnectorRegistry().create(spec, deps);

describe("generic connectors (a provider id with no connector of its own)", () => {
  it("openai: chat completions with a Bearer key, under the connection's own provider id", () => {
    const connector = create(acme());
    expect(connector).toMatchObject({ provider: "acme-coding", protocol: "openai-chat" });
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
    expect(connector.forwardedClientHeaders).toEqual([]);
    // OpenAI's standard x-ratelimit headers.
    const read = connector.readResponse({
      status: 200,
      headers: { "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "25" },
      observedAtMs: Date.parse("2026-11-30T10:00:00Z"),
    });
    expect(read.windows).toEqual([
      expect.objectContaining({ windowId: "rpm", remainingPercent: 25 }),
    ]);
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
      acme({ protocol: "anthropic-messages", baseUrl: "https://api.acme.example/anthropic" }),
    );
    expect(connector.protocol).toBe("anthropic-messages");
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
    expect(connector.forwardedClientHeaders).toContain("anthropic-beta");
    // A 429 with the Anthropic headers: retry at Retry-After, reset from the spent bucket.
    const read = connector.readResponse({
      status: 429,
      headers: {
        "retry-after": "30",
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2026-11-30T10:00:40Z",
      },
      body: { type: "error", error: { type: "rate_limit_error", message: "Rate limited" } },
      observedAtMs: Date.parse("2026-11-30T10:00:00Z"),
    });
    expect(read.windows).toEqual([
      expect.objectContaining({ windowId: "rpm", remainingPercent: 0 }),
    ]);
    expect(read.failure).toMatchObject({
      kind: "rate_limited",
      retryAt: "2026-11-30T10:00:30.000Z",
      resetAt: "2026-11-30T10:00:40.000Z",
      windowId: "rpm",
    });
  });

  it("claims nothing about billing: its answers carry no overage evidence, keyed or keyless", () => {
    const answers = [
      { status: 200, headers: { "x-ratelimit-remaining-requests": "10" }, observedAtMs: 0 },
      {
        status: 402,
        headers: {},
        body: { error: { code: "insufficient_quota" } },
        observedAtMs: 0,
      },
    ];
    for (const protocol of ["openai-chat", "anthropic-messages", "openai-responses"] as const) {
      const keyed = create(acme({ protocol }));
      const keyless = create(acme({ protocol, authType: "none", credential: undefined }));
      for (const answer of answers) {
        expect(keyed.readResponse(answer).evidence, protocol).toBeUndefined();
        expect(keyless.readResponse(answer).evidence, protocol).toBeUndefined();
      }
      const headers = (keyless.prepare(call) as { headers: Record<string, string> }).headers;
      expect(headers.authorization, protocol).toBeUndefined();
      expect(headers["x-api-key"], protocol).toBeUndefined();
    }
  });

  it("reads a Gemini API key's answers in Google's own family: a daily quota is a spent window, not a rate limit (quota-signals.md §6a)", () => {
    const answer = {
      status: 429,
      headers: {},
      body: {
        error: {
          code: 429,
          status: "RESOURCE_EXHAUSTED",
          message: "You exceeded your current quota.",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [
                {
                  quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                  quotaDimensions: { model: "gemini-2.5-pro" },
                },
              ],
            },
          ],
        },
      },
      observedAtMs: Date.parse("2026-11-30T10:00:00Z"),
      model: "gemini-2.5-pro",
    };
    const google = create(acme({ provider: "google" }));
    expect(google.readResponse(answer).failure?.kind).toBe("window_exhausted");
    expect(create(acme()).readResponse(answer).failure?.kind).toBe("rate_limited");
  });

  it("needs baseUrl, and a key unless keyless: errors name the connection, never the key", () => {
    for (const protocol of ["openai-chat", "anthropic-messages", "openai-responses"] as const) {
      expect(() => create(acme({ protocol, baseUrl: undefined }))).toThrow(
        new RegExp(
          `connection acme: provider "acme-coding" has no connector of its own, so the generic ${configNameOf(protocol)} connector serves it, and that needs baseUrl`,
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
    expect(describeGenericConnector("openai-chat", false)).toBe(
      "generic openai connector (Bearer key, OpenAI errors and x-ratelimit headers)",
    );
    expect(describeGenericConnector("anthropic-messages", false)).toBe(
      "generic anthropic connector (x-api-key, Anthropic errors and anthropic-ratelimit headers)",
    );
    expect(describeGenericConnector("openai-responses", true)).toBe(
      "generic openai-responses connector (no key, OpenAI errors and x-ratelimit headers)",
    );
  });
});
