import { credentialLabel, type FakeUpstream, startFakeUpstream } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildUpstreamRequest, type UpstreamTarget, upstreamUrl } from "./build-upstream-request";
import { createUpstreamClient } from "./upstream-client";

describe("upstreamUrl", () => {
  it.each([
    ["https://openrouter.ai/api/v1", "openai", "https://openrouter.ai/api/v1/chat/completions"],
    ["http://127.0.0.1:11434/v1/", "openai", "http://127.0.0.1:11434/v1/chat/completions"],
    ["https://api.anthropic.com", "anthropic", "https://api.anthropic.com/v1/messages"],
    ["https://api.anthropic.com/", "anthropic", "https://api.anthropic.com/v1/messages"],
    [
      "https://proxy.example/anthropic/v1",
      "anthropic",
      "https://proxy.example/anthropic/v1/messages",
    ],
  ] as const)("%s (%s) → %s", (baseUrl, protocol, expected) => {
    expect(upstreamUrl(baseUrl, protocol)).toBe(expected);
  });
});

describe("buildUpstreamRequest through real HTTP", () => {
  let upstream: FakeUpstream;
  const client = createUpstreamClient();

  beforeAll(async () => {
    upstream = await startFakeUpstream({ protocol: "both" });
  });
  afterAll(async () => {
    client.close();
    await upstream.close();
  });
  beforeEach(() => upstream.reset());

  async function hitFor(target: Omit<UpstreamTarget, "baseUrl">, baseUrl = upstream.origin) {
    const request = buildUpstreamRequest(
      { ...target, baseUrl },
      '{"model":"m","max_tokens":5,"messages":[]}',
      {
        timeoutMs: 2_000,
        stream: false,
      },
    );
    await (await client.send(request)).text();
    return upstream.hits.at(-1)!;
  }

  it("OpenAI API key → Authorization: Bearer, no Anthropic headers", async () => {
    const hit = await hitFor(
      { protocol: "openai", authType: "apikey", credential: "sk-openai-key-1" },
      upstream.url,
    );
    expect(hit.path).toBe("/v1/chat/completions");
    expect(hit.auth).toEqual({
      header: "authorization",
      scheme: "Bearer",
      label: credentialLabel("sk-openai-key-1"),
    });
    expect(hit.headers["content-type"]).toBe("application/json");
    expect(hit.headers.accept).toBe("application/json");
    expect(hit.headers["anthropic-version"]).toBeUndefined();
  });

  it("Anthropic API key → x-api-key and anthropic-version", async () => {
    const hit = await hitFor({
      protocol: "anthropic",
      authType: "apikey",
      credential: "sk-ant-api03-key-2",
    });
    expect(hit.path).toBe("/v1/messages");
    expect(hit.auth).toEqual({
      header: "x-api-key",
      scheme: null,
      label: credentialLabel("sk-ant-api03-key-2"),
    });
    expect(hit.headers["anthropic-version"]).toBe("2023-06-01");
    expect(hit.headers["anthropic-beta"]).toBeUndefined();
  });

  it("Anthropic OAuth → Bearer plus the OAuth beta, merged with configured betas", async () => {
    const hit = await hitFor({
      protocol: "anthropic",
      authType: "oauth",
      credential: "sk-ant-oat01-token-3",
      headers: {
        "Anthropic-Beta": "interleaved-thinking-2025-05-14",
        "X-Api-Key": "must-not-leak",
      },
    });
    expect(hit.auth).toEqual({
      header: "authorization",
      scheme: "Bearer",
      label: credentialLabel("sk-ant-oat01-token-3"),
    });
    expect(hit.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14,oauth-2025-04-20");
    expect(hit.headers["x-api-key"]).toBeUndefined();
  });

  it("keyless (authType none) sends no auth header even with a credential", async () => {
    const hit = await hitFor(
      { protocol: "openai", authType: "none", credential: "ignored" },
      upstream.url,
    );
    expect(hit.auth).toEqual({ header: null, scheme: null, label: null });
  });

  it("stream requests accept text/event-stream", () => {
    const request = buildUpstreamRequest(
      {
        baseUrl: "https://api.anthropic.com",
        protocol: "anthropic",
        authType: "apikey",
        credential: "k",
      },
      "{}",
      { timeoutMs: 1_000, stream: true, idleTimeoutMs: 500 },
    );
    expect(request).toMatchObject({
      url: "https://api.anthropic.com/v1/messages",
      headers: { accept: "text/event-stream", "x-api-key": "k" },
      timeoutMs: 1_000,
      idleTimeoutMs: 500,
    });
  });
});
