import Anthropic from "@anthropic-ai/sdk";
import { anthropicApiHeaders, type FakeUpstream, type Reply } from "@planfirst/fake-upstream";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../src/app/check-config";
import { parseConfig } from "../src/config/load-config";
import type { GatewayConfigInput } from "../src/config/schema";
import type { ConnectionInput } from "./fixtures";
import { chatBody, type Harness, messagesBody, post, useTestBed } from "./harness";

// A coding plan from a provider planfirst ships no connector for: any provider id on a known
// protocol is served by that protocol's generic connector, and its billing is the operator's
// catalog entry for the provider (else unknown, routed as metered).

const bed = useTestBed({ chat: "openai", messages: "anthropic", responses: "openai-responses" });
const hour = 3_600_000;
const minute = 60_000;
const ENV = { ACME_KEY: "acme-secret-key-0001" };
const MODEL = "acme-coder-1";

/** The operator's word on the plan: it stops at its limit and never bills past it. */
const ACME_PLAN_ENTRY = {
  provider: "acme-coding",
  billing: "subscription" as const,
  overage: "hard-stop" as const,
  reason: "test: the acme coding plan stops at its 5-hour limit and has no paid overage",
  sources: ["https://acme.example/coding-plan/terms"],
  reviewed: "2026-11-30",
};

type Wire = "openai" | "anthropic" | "openai-responses";

/** Per protocol: its fake, the gateway route its clients use, and a quota 429 in its format. */
const WIRES: Record<
  Wire,
  {
    fake: () => FakeUpstream;
    route: string;
    body: (model: string) => Record<string, unknown>;
    limitReached: (retryAfterSec: number) => Reply;
  }
> = {
  openai: {
    fake: () => bed.fakes.chat,
    route: "/v1/chat/completions",
    body: (model) => chatBody(model),
    limitReached: openAiLimitReached,
  },
  anthropic: {
    fake: () => bed.fakes.messages,
    route: "/v1/messages",
    body: (model) => messagesBody(model),
    limitReached: (retryAfterSec) => ({
      status: 429,
      headers: { "retry-after": String(retryAfterSec) },
      body: {
        type: "error",
        error: { type: "rate_limit_error", message: "Your coding plan's usage limit is reached." },
      },
    }),
  },
  "openai-responses": {
    fake: () => bed.fakes.responses,
    route: "/v1/responses",
    body: (model) => ({ model, input: "hello", max_output_tokens: 16 }),
    limitReached: openAiLimitReached,
  },
};

function openAiLimitReached(retryAfterSec: number): Reply {
  return {
    status: 429,
    headers: { "retry-after": String(retryAfterSec) },
    body: {
      error: {
        message: "Your coding plan's usage limit is reached.",
        type: "rate_limit_exceeded",
        param: null,
        code: "rate_limit_exceeded",
      },
    },
  };
}

function acme(wire: Wire, overrides: Partial<ConnectionInput> = {}): ConnectionInput {
  return {
    id: "acme",
    provider: "acme-coding",
    authType: "apikey",
    protocol: wire,
    baseUrl: WIRES[wire].fake().url,
    credential: "env:ACME_KEY",
    models: [MODEL],
    timeoutMs: 5_000,
    ...overrides,
  };
}

function config(wire: Wire, planEntry: boolean): GatewayConfigInput {
  return {
    connections: [acme(wire)],
    catalog: { connections: planEntry ? [ACME_PLAN_ENTRY] : [] },
  };
}

function send(harness: Harness, wire: Wire, model: string) {
  return post(harness.url, WIRES[wire].route, WIRES[wire].body(model));
}

describe("a provider with no connector of its own, on a known protocol", () => {
  it("is served a concrete model by the generic connector of each protocol, through the official SDKs", async () => {
    const harness = await bed.start({
      config: {
        connections: [
          acme("openai", { id: "acme-chat" }),
          acme("anthropic", { id: "acme-messages", models: ["acme-coder-1-messages"] }),
          acme("openai-responses", { id: "acme-responses", models: ["acme-coder-1-responses"] }),
        ],
      },
      env: ENV,
    });
    expect(harness.server.gateway.warnings.join("\n")).not.toMatch(/disabled/);
    const openai = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: harness.url, apiKey: "unused", maxRetries: 0 });

    const chat = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 16 })
      .withResponse();
    expect(chat.data.choices[0]?.message.content).toBe("ok");
    expect(chat.response.headers.get("x-planfirst-connection")).toBe("acme-chat");

    const message = await anthropic.messages
      .create({
        model: "acme-coder-1-messages",
        max_tokens: 16,
        messages: [{ role: "user", content: "hi" }],
      })
      .withResponse();
    expect(message.data.content).toEqual([{ type: "text", text: "ok" }]);
    expect(message.response.headers.get("x-planfirst-connection")).toBe("acme-messages");

    const stream = await openai.responses.create({
      model: "acme-coder-1-responses",
      input: "hi",
      stream: true,
    });
    let text = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(text).toBe("ok");

    const [chatHit] = bed.fakes.chat.completionHits();
    expect(chatHit).toMatchObject({ path: "/v1/chat/completions", model: MODEL });
    expect(chatHit?.auth).toMatchObject({ header: "authorization", scheme: "Bearer" });
    const [messagesHit] = bed.fakes.messages.completionHits();
    expect(messagesHit).toMatchObject({ path: "/v1/messages", model: "acme-coder-1-messages" });
    expect(messagesHit?.auth.header).toBe("x-api-key");
    // The SDK's own anthropic-version goes upstream unchanged (the connector adds one only when
    // the client sent none).
    expect(messagesHit?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const [responsesHit] = bed.fakes.responses.completionHits();
    expect(responsesHit).toMatchObject({ path: "/v1/responses", stream: true });
    expect(responsesHit?.auth).toMatchObject({ header: "authorization", scheme: "Bearer" });
    // Each connection's own key, never another's.
    const labels = [chatHit, messagesHit, responsesHit].map((hit) => hit?.auth.label);
    expect(new Set(labels).size).toBe(1);
  });

  it("C7: with no catalog entry its billing is unknown, so it sits on a metered rung and auto/subscription never reaches it", async () => {
    const harness = await bed.start({ config: config("openai", false), env: ENV });
    const routed = harness.server.gateway.context.table.connections.get("acme");
    expect(routed?.billing).toMatchObject({ billing: "unknown", matchedBy: "C5" });

    for (let i = 0; i < 3; i++) {
      const strict = await send(harness, "openai", "auto/subscription");
      expect(strict.status).toBe(429);
      const body = (await strict.json()) as { error: { code: string } };
      expect(body.error.code).toBe("plan_quota_exhausted");
      harness.clock.advance(minute);
    }
    expect(bed.fakes.chat.completionHits()).toHaveLength(0);

    const thrifty = await send(harness, "openai", "auto/thrifty");
    expect(thrifty.status).toBe(200);
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("premium");
  });

  for (const wire of ["openai", "anthropic", "openai-responses"] as const) {
    it(`${wire}: with the operator entry subscription/hard-stop it serves auto/subscription at cold start through a probe, fails closed while the plan answers 429, and is back at the reset`, async () => {
      const harness = await bed.start({ config: config(wire, true), env: ENV });
      const { clock } = harness;
      const fake = WIRES[wire].fake();
      const hits = () => fake.completionHits().length;

      // P1–P3: no reading at cold start; the hard-stop plan is probed with this very request.
      const first = await send(harness, wire, "auto/subscription");
      expect(first.status).toBe(200);
      expect(first.headers.get("x-planfirst-connection")).toBe("acme");
      expect(first.headers.get("x-planfirst-rung")).toBe("subscription");
      const served = harness.server.gateway.deps.quotaCache.get("acme-coding", "acme", MODEL);
      expect(served).toMatchObject({ status: "available", remainingPercent: null });

      // P4, SUB6: the served reading lapses; the next strict request probes and meets the limit.
      clock.advance(4 * minute);
      const resetMs = clock.now() + 2 * hour;
      fake.script([WIRES[wire].limitReached(2 * 3600)]);
      const refused = await send(harness, wire, "auto/subscription");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBe(2 * 3600);
      const body = await refused.text();
      expect(body).toContain("plan_quota_exhausted");
      expect(body).toContain(new Date(resetMs).toISOString());
      const hitsWhenExhausted = hits();

      // While exhausted: refused with the Retry-After of the reset, and never sent upstream.
      for (let i = 0; i < 5; i++) {
        clock.advance(20 * minute);
        const strict = await send(harness, wire, "auto/subscription");
        expect(strict.status).toBe(429);
        expect(Number(strict.headers.get("retry-after"))).toBe(
          Math.ceil((resetMs - clock.now()) / 1000),
        );
      }
      expect(hits()).toBe(hitsWhenExhausted);

      // Back at the reset instant. The 429's Retry-After set a cooldown that ends exactly then
      // (S4: a cooldown never outlives the upstream's own reset), and the failure ended the
      // probe's `served` reading (P4), so the plan has no reading and is probeable again (P1,
      // Q1): the first strict request after the reset is the probe, and it is served (P3).
      clock.set(resetMs);
      const back = await send(harness, wire, "auto/subscription");
      expect(back.status).toBe(200);
      expect(back.headers.get("x-planfirst-connection")).toBe("acme");
      expect(hits()).toBe(hitsWhenExhausted + 1);
    });
  }

  it("anthropic: a spent anthropic-ratelimit bucket on a 200 keeps strict traffic off the plan until the bucket's reset", async () => {
    const harness = await bed.start({ config: config("anthropic", true), env: ENV });
    const { clock } = harness;
    const resetAt = new Date(clock.now() + 40_000).toISOString();
    bed.fakes.messages.script([
      { headers: anthropicApiHeaders({ requests: { limit: 50, remaining: 0, resetAt } }) },
    ]);
    expect((await send(harness, "anthropic", "auto/subscription")).status).toBe(200);
    const reading = harness.server.gateway.deps.quotaCache.get("acme-coding", "acme", MODEL);
    expect(reading?.windows.map((w) => [w.windowId, w.remainingPercent])).toContainEqual([
      "rpm",
      0,
    ]);
    const refused = await send(harness, "anthropic", "auto/subscription");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("40");
    expect(bed.fakes.messages.completionHits()).toHaveLength(1);
  });

  it("planfirst check names the generic connector, says unknown billing is metered, and wants a baseUrl", async () => {
    const findings = checkConfig(
      parseConfig({
        connections: [
          acme("openai"),
          acme("anthropic", { id: "acme-messages", provider: "other-plan", baseUrl: undefined }),
          acme("openai", {
            id: "local",
            provider: "my-llama",
            authType: "none",
            credential: undefined,
          }),
          acme("openai", { id: "gemini-acme", protocol: "gemini" }),
        ],
        catalog: { connections: [ACME_PLAN_ENTRY] },
      }),
      ENV,
    );
    const messages = (code: string) =>
      findings.filter((f) => f.code === code).map((f) => `${f.severity} ${f.path}: ${f.message}`);
    expect(messages("generic_connector")).toEqual([
      "note connections[0]: acme: provider acme-coding has no connector of its own; served by the generic openai connector (Bearer key, OpenAI errors and x-ratelimit headers)",
      "note connections[1]: acme-messages: provider other-plan has no connector of its own; served by the generic anthropic connector (x-api-key, Anthropic errors and anthropic-ratelimit headers)",
      "note connections[2]: local: provider my-llama has no connector of its own; served by the generic openai connector (no key, OpenAI errors and x-ratelimit headers)",
    ]);
    expect(messages("missing_base_url")).toEqual([
      "error connections[1].baseUrl: acme-messages: the generic anthropic connector needs baseUrl (there is no default host); the connection will be disabled",
    ]);
    // Only the plan with no catalog entry (a keyless server is keyless, C1).
    expect(messages("unknown_billing")).toEqual([
      expect.stringMatching(
        /^warning connections\[1\]: acme-messages: provider "other-plan" .* billing is unknown: it is treated as metered/,
      ),
    ]);
    expect(messages("unknown_connector")).toEqual([
      expect.stringMatching(
        /^error connections\[3\]: gemini-acme: no connector for provider "acme-coding" .*protocol "gemini" has no generic connector/,
      ),
    ]);
  });

  it("a generic connection without baseUrl is disabled at start, naming the connection", async () => {
    const harness = await bed.start({
      config: { connections: [acme("openai", { baseUrl: undefined })] },
      env: ENV,
    });
    expect(harness.server.gateway.warnings.join("\n")).toMatch(
      /connection acme is disabled: connection acme: provider "acme-coding" has no connector of its own, so the generic openai connector serves it, and that needs baseUrl/,
    );
    const refused = await send(harness, "openai", MODEL);
    expect(refused.status).not.toBe(200);
    expect(bed.fakes.chat.completionHits()).toHaveLength(0);
  });
});
