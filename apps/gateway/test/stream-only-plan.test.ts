import Anthropic from "@anthropic-ai/sdk";
import { ChatOpenAI } from "@langchain/openai";
import { ECHO_CREDENTIAL } from "@planfirst/fake-upstream";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import { usePlanBed } from "./connectors-plans-helpers";
import { codexPlanConnection, codexPlanEnv } from "./fixtures";
import { chatBody, type Harness, ledgerOf, post, startHarness, waitFor } from "./harness";

// Whole (non-stream) requests on the ChatGPT plan, whose Codex backend answers streamed requests
// only: the gateway streams upstream and answers each client protocol whole, through the
// official SDKs, with a metered OpenAI-compatible connection on the cheap rung behind the plan.

const PATCH =
  "*** Begin Patch\n*** Update File: src/app.ts\n+export const port = 8080;\n*** End Patch";

const bed = usePlanBed();
let running: Harness[] = [];

beforeEach(() => {
  Object.assign(bed.plans.codex, {
    text: "ok",
    toolCall: null,
    streamContentType: "text/event-stream; charset=utf-8",
    streamCut: null,
  });
});

afterEach(async () => {
  await Promise.all(running.map((harness) => harness.close()));
  running = [];
});

const entry = {
  provider: "codex",
  authType: "oauth",
  sources: ["https://example.invalid/terms"],
  reviewed: "2026-11-30",
};

/** The ChatGPT plan as a verified hard stop: the account holds no credits. */
const CODEX_HARD_STOP = {
  ...entry,
  billing: "subscription" as const,
  overage: "hard-stop" as const,
  reason: "test: the account has no credits, so the plan stops at its limit",
};

/** The same connection billed per token, to put a streams-only upstream on a paid rung. */
const CODEX_METERED = {
  ...entry,
  billing: "metered" as const,
  overage: "meters-to-paid" as const,
  reason: "test: this login is billed per token",
};

const METERED_KEY = "sk-metered-secret-value-0010";

async function gateway(catalog: GatewayConfigInput["catalog"]): Promise<Harness> {
  const harness = await startHarness({
    clock: bed.clock,
    env: { ...codexPlanEnv(bed.plans), METERED_KEY },
    config: {
      connections: [
        codexPlanConnection(bed.plans, { timeoutMs: 5_000 }),
        {
          id: "metered",
          provider: "openrouter",
          authType: "apikey",
          protocol: "openai",
          baseUrl: bed.metered.url,
          credential: "env:METERED_KEY",
          models: ["qwen/qwen3-coder"],
          timeoutMs: 5_000,
        },
      ],
      catalog,
      subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    },
  });
  running.push(harness);
  return harness;
}

/** A gateway with the plan verified: a hard stop whose usage endpoint was read. */
async function planGateway(): Promise<Harness> {
  const harness = await gateway({ connections: [CODEX_HARD_STOP] });
  await harness.server.gateway.refreshUsage();
  return harness;
}

function sdks(harness: Harness) {
  return {
    openai: new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: harness.url, apiKey: "unused", maxRetries: 0 }),
  };
}

function backendHits(path = "/backend-api/codex/responses") {
  return bed.completionHits(path);
}

/** The receipt of an answer the plan served on the first attempt, free. */
function expectPlanReceipt(headers: Headers) {
  expect(headers.get("content-type")).toBe("application/json");
  expect(headers.get("x-planfirst-rung")).toBe("subscription");
  expect(headers.get("x-planfirst-connection")).toBe("chatgpt");
  expect(headers.get("x-planfirst-model")).toBe("gpt-5-codex");
  expect(headers.get("x-planfirst-attempts")).toBe("1");
  expect(headers.get("x-planfirst-cost-usd")).toBe("0");
}

const hello = [{ role: "user" as const, content: "hello" }];

describe("the Codex backend's body requirements (quota-signals.md §15)", () => {
  it("every body carries store: false and instructions, the client's own instructions kept", async () => {
    const harness = await planGateway();
    const { openai } = sdks(harness);
    // The SDKs send neither field: a Chat client with no system prompt, a plain Responses call.
    await openai.chat.completions.create({ model: "auto/subscription", messages: hello });
    await openai.responses.create({ model: "auto/subscription", input: "hello" });
    await openai.responses.create({
      model: "auto/subscription",
      input: "hello",
      instructions: "Answer in French.",
    });
    const bodies = backendHits().map((hit) => hit.body as Record<string, unknown>);
    expect(bodies.map((body) => [body.store, body.instructions])).toEqual([
      [false, ""],
      [false, ""],
      [false, "Answer in French."],
    ]);
  });

  it("a client asking to store is served without storage and told so in x-planfirst-dropped", async () => {
    const harness = await planGateway();
    const { openai } = sdks(harness);
    const stored = await openai.responses
      .create({ model: "auto/subscription", input: "hello", store: true })
      .withResponse();
    expect(stored.data.output_text).toBe("ok");
    expect(stored.response.headers.get("x-planfirst-dropped")).toBe("store");
    const body = backendHits().at(-1)!.body as Record<string, unknown>;
    expect(body.store).toBe(false);
  });
});

describe("a whole request on the ChatGPT plan (the backend streams only)", () => {
  for (const model of ["auto/subscription", "auto/thrifty"]) {
    it(`${model}: Chat, Messages and Responses clients get the plan's whole answer, usage and receipt`, async () => {
      const harness = await planGateway();
      const { openai, anthropic } = sdks(harness);

      const chat = await openai.chat.completions
        .create({ model, messages: hello, max_tokens: 16 })
        .withResponse();
      expect(chat.data.choices[0]?.message.content).toBe("ok");
      expect(chat.data.choices[0]?.finish_reason).toBe("stop");
      expect(chat.data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 1 });
      expectPlanReceipt(chat.response.headers);

      const message = await anthropic.messages
        .create({ model, max_tokens: 16, messages: hello })
        .withResponse();
      expect(message.data.content).toEqual([{ type: "text", text: "ok" }]);
      expect(message.data.stop_reason).toBe("end_turn");
      expect(message.data.usage).toMatchObject({ input_tokens: 12, output_tokens: 1 });
      expectPlanReceipt(message.response.headers);

      const responses = await openai.responses.create({ model, input: "hello" }).withResponse();
      expect(responses.data.status).toBe("completed");
      expect(responses.data.output_text).toBe("ok");
      expect(responses.data.usage).toMatchObject({ input_tokens: 12, output_tokens: 1 });
      expectPlanReceipt(responses.response.headers);

      // Each was asked of the backend as a stream, and nothing reached the paid rung.
      expect(backendHits().map((hit) => (hit.body as { stream?: unknown }).stream)).toEqual([
        true,
        true,
        true,
      ]);
      expect(bed.metered.completionHits()).toHaveLength(0);
      // The stream's in-band codex.rate_limits event reached the quota cache.
      const state = harness.server.gateway.deps.quotaCache.get("codex", "chatgpt");
      expect(state?.windows.some((window) => window.source === "event")).toBe(true);
    });
  }

  it("LangChain's invoke (no stream) is answered by the plan over Chat and over Responses", async () => {
    const harness = await planGateway();
    for (const useResponsesApi of [false, true]) {
      const chat = new ChatOpenAI({
        model: "auto/subscription",
        apiKey: "unused",
        configuration: { baseURL: `${harness.url}/v1` },
        useResponsesApi,
        maxRetries: 0,
      });
      expect((await chat.invoke("hello")).text).toBe("ok");
    }
    expect(backendHits()).toHaveLength(2);
    expect(bed.metered.completionHits()).toHaveLength(0);
  });

  it("a function call reaches each client whole, and a custom call the clients that have them", async () => {
    const harness = await planGateway();
    const { openai, anthropic } = sdks(harness);
    const model = "auto/subscription";
    const parameters = {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    };
    bed.plans.codex.toolCall = { kind: "function", input: '{"city":"Paris"}' };

    const chat = await openai.chat.completions.create({
      model,
      messages: hello,
      tools: [{ type: "function", function: { name: "get_weather", parameters } }],
    });
    expect(chat.choices[0]?.finish_reason).toBe("tool_calls");
    expect(chat.choices[0]?.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);

    const message = await anthropic.messages.create({
      model,
      max_tokens: 64,
      messages: hello,
      tools: [{ name: "get_weather", input_schema: { ...parameters, type: "object" } }],
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      {
        type: "tool_use",
        id: expect.stringMatching(/^call_/),
        name: "get_weather",
        input: { city: "Paris" },
      },
    ]);

    const responses = await openai.responses.create({
      model,
      input: "hello",
      tools: [{ type: "function", name: "get_weather", parameters, strict: true }],
    });
    expect(responses.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        id: expect.stringMatching(/^fc_/),
        call_id: expect.stringMatching(/^call_/),
        name: "get_weather",
        arguments: '{"city":"Paris"}',
      }),
    ]);

    bed.plans.codex.toolCall = { kind: "custom", input: PATCH };
    const custom = await openai.responses.create({
      model,
      input: "patch it",
      tools: [{ type: "custom", name: "apply_patch" }],
    });
    expect(custom.output).toEqual([
      expect.objectContaining({
        type: "custom_tool_call",
        id: expect.stringMatching(/^ctc_/),
        name: "apply_patch",
        input: PATCH,
      }),
    ]);
    const chatCustom = await openai.chat.completions.create({
      model,
      messages: hello,
      tools: [{ type: "custom", custom: { name: "apply_patch" } }],
    });
    expect(chatCustom.choices[0]?.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: "custom",
        custom: { name: "apply_patch", input: PATCH },
      },
    ]);
    expect(backendHits()).toHaveLength(5);
    expect(bed.metered.completionHits()).toHaveLength(0);
  });

  it.each([null, "application/octet-stream", "text/plain"])(
    "reads the backend's stream whatever its Content-Type (%s), whole or streamed to the client",
    async (contentType) => {
      const harness = await planGateway();
      bed.plans.codex.streamContentType = contentType;
      const { openai } = sdks(harness);
      const whole = await openai.responses.create({ model: "auto/subscription", input: "hello" });
      expect(whole.output_text).toBe("ok");
      const streamed = await post(
        harness.url,
        "/v1/chat/completions",
        chatBody("auto/subscription", { stream: true }),
      );
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get("x-planfirst-connection")).toBe("chatgpt");
      const text = await streamed.text();
      expect(text).toContain('"content":"ok"');
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(bed.metered.completionHits()).toHaveLength(0);
    },
  );

  it.each(["end", "reset"] as const)(
    "a stream cut before response.completed (%s) is never served: thrifty climbs, subscription fails closed",
    async (cut) => {
      bed.plans.codex.text = "half of the plan's answer";
      bed.plans.codex.streamCut = cut;
      const strict = await planGateway();
      const refused = await post(strict.url, "/v1/chat/completions", chatBody("auto/subscription"));
      const refusal = await refused.text();
      expect(refused.status).toBe(429);
      expect(JSON.parse(refusal).error.code).toBe("plan_quota_exhausted");
      expect(refusal).not.toContain("half of the plan");
      expect(bed.metered.completionHits()).toHaveLength(0);

      const thrifty = await planGateway();
      const climbed = await post(thrifty.url, "/v1/chat/completions", chatBody("auto/thrifty"));
      const answer = await climbed.text();
      expect(climbed.status).toBe(200);
      expect(climbed.headers.get("x-planfirst-rung")).toBe("cheap");
      expect(climbed.headers.get("x-planfirst-connection")).toBe("metered");
      expect(climbed.headers.get("x-planfirst-attempts")).toBe("2");
      expect(answer).not.toContain("half of the plan");
      expect(backendHits()).toHaveLength(2);
      expect(bed.metered.completionHits()).toHaveLength(1);
    },
  );

  it("a credential the backend echoes is redacted from the whole answer", async () => {
    const harness = await planGateway();
    bed.plans.codex.text = `you sent ${ECHO_CREDENTIAL}`;
    const response = await post(harness.url, "/v1/responses", {
      model: "auto/subscription",
      input: "hello",
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain("you sent [redacted]");
    expect(text).not.toContain(codexPlanEnv(bed.plans).CODEX_ACCESS.slice(0, 24));
  });

  it("/responses/compact is still sent whole", async () => {
    const harness = await planGateway();
    await post(harness.url, "/v1/responses/compact", { model: "gpt-5-codex", input: "long" });
    const hits = backendHits("/backend-api/codex/responses/compact");
    expect(hits.map((hit) => (hit.body as { stream?: unknown }).stream)).toEqual([undefined]);
  });
});

describe("a whole request to a streams-only connection on a paid rung", () => {
  const price = { provider: "codex", model: "gpt-5-codex", inputPerMTok: 0.5, outputPerMTok: 3 };

  it("is reserved before the call and settled from the usage the stream reported", async () => {
    const harness = await gateway({ connections: [CODEX_METERED], models: [price] });
    const ledger = ledgerOf(harness);
    const response = await post(harness.url, "/v1/chat/completions", chatBody("gpt-5-codex"));
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    // 12 input tokens at $0.50/M and 1 output token at $3/M, as the stream's usage said.
    expect(response.headers.get("x-planfirst-cost-usd")).toBe("0.000009");
    expect(response.headers.get("x-planfirst-cost-basis")).toBeNull();
    await waitFor(() => ledger.reservedUsd("cheap") === 0, { what: "the settle" });
    const records = await ledger.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      connectionId: "chatgpt",
      inputTokens: 12,
      outputTokens: 1,
      costUsd: 0.000009,
    });
  });

  it("B8 a stream cut before its end is not served, and is booked at what was reserved for it", async () => {
    const harness = await gateway({ connections: [CODEX_METERED], models: [price] });
    const ledger = ledgerOf(harness);
    bed.plans.codex.streamCut = "end";
    const body = chatBody("gpt-5-codex");
    const response = await post(harness.url, "/v1/chat/completions", body);
    expect(response.status).toBeGreaterThanOrEqual(500);
    await waitFor(() => ledger.reservedUsd("cheap") === 0, { what: "the settle" });
    // The upstream ran the request and no usage came before the cut: it books the bound it was
    // reserved at (the input estimate and the output limit), never the prompt alone.
    // The input estimate is of the body the backend was sent (the request in its protocol).
    const sent = bed.plans.hits.filter((hit) => hit.path.endsWith("/responses")).at(-1)!;
    const inputTokens = Math.ceil(Buffer.byteLength(JSON.stringify(sent.body)) / 3);
    const records = await ledger.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      connectionId: "chatgpt",
      inputTokens,
      outputTokens: body.max_tokens,
    });
    expect(records[0]!.costMicroUsd).toBe(records[0]!.reservedMicroUsd);
  });
});
