import Anthropic from "@anthropic-ai/sdk";
import { claudeRateLimited } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

// What Claude Code and the Codex CLI need from a gateway (quota-signals.md §14), on the wire: each
// test below fails on the gateway before the protocol hub was wired (no /v1/responses, Claude
// Code's fields refused on an OpenAI rung, its headers dropped, count_tokens a 404, one model list
// shape, HEAD / a 401).

const bed = useTestBed(STANDARD_FAKES);
const KEYED = { server: { apiKeys: ["env:CLIENT_KEY"] } };
const auth = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` };
const hour = 3_600_000;

function responsesBody(model: string, extra: Record<string, unknown> = {}) {
  return {
    model,
    instructions: "You are terse.",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }],
    max_output_tokens: 64,
    store: false,
    ...extra,
  };
}

/** A Claude Code request as 2.1 sends it (trimmed): the fields an OpenAI rung used to refuse. */
function claudeCodeBody(model: string) {
  return {
    model,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: "text", text: "You are a coding assistant in a terminal client." },
      { type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } },
    ],
    messages: [
      {
        role: "user",
        content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }],
      },
      { role: "system", content: "The user prefers short answers." },
      { role: "user", content: "say ok" },
    ],
    thinking: { type: "adaptive" },
    output_config: { effort: "medium" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    metadata: { user_id: "user_abc_account_def_session_ghi" },
  };
}

describe("Codex CLI cannot use planfirst at all: POST /v1/responses", () => {
  it("answers a non-stream Responses request from a chat upstream in the Responses shape", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const response = await post(harness.url, "/v1/responses", responsesBody("qwen/qwen3-coder"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-connection")).toBe("openrouter");
    const body = (await response.json()) as {
      object: string;
      status: string;
      output: { type: string; content?: { type: string; text: string }[] }[];
    };
    expect(body.object).toBe("response");
    expect(body.status).toBe("completed");
    const message = body.output.find((item) => item.type === "message");
    expect(message?.content?.[0]).toMatchObject({ type: "output_text", text: "ok" });
    const hit = bed.fakes.router.completionHits()[0]!;
    expect(hit.path).toBe("/v1/chat/completions");
    const sent = hit.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages[0]).toMatchObject({ role: "system" });
  });

  it("streams Responses events ending with response.completed", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.router.script([{ stream: { chunks: ["he", "llo"] } }]);
    const response = await post(
      harness.url,
      "/v1/responses",
      responsesBody("qwen/qwen3-coder", { stream: true }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    expect(text).toContain("event: response.output_text.delta");
    expect(text.trimEnd().split("\n\n").at(-1)).toContain("event: response.completed");
  });

  it("refuses previous_response_id where no Responses upstream holds the earlier response, saying why", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const response = await post(
      harness.url,
      "/v1/responses",
      responsesBody("qwen/qwen3-coder", { previous_response_id: "resp_123" }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe("previous_response_id");
    expect(body.error.message).toContain("previous_response_id");
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
  });

  it("answers /v1/responses/compact with a 400 that says only a Responses upstream serves it", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const response = await post(
      harness.url,
      "/v1/responses/compact",
      responsesBody("qwen/qwen3-coder"),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("/compact is served only by a openai-responses upstream");
    expect(bed.fakes.router.hits).toHaveLength(0);
  });
});

describe("Claude Code on auto/thrifty breaks at the moment the plan runs out", () => {
  it("escalates from an exhausted plan to an OpenAI-protocol rung, dropping only hints and naming them", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const resetAtSec = Math.floor((harness.clock.now() + hour) / 1000);
    bed.fakes.plan.script([claudeRateLimited({ resetAtSec, retryAfterSec: 3600 })]);
    const response = await post(harness.url, "/v1/messages", claudeCodeBody("auto/thrifty"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    expect(response.headers.get("x-planfirst-attempts")).toBe("2");
    const dropped = response.headers.get("x-planfirst-dropped") ?? "";
    expect(dropped).toContain("context_management");
    expect(dropped).toContain("cache_control");
    const text = await response.text();
    expect(text).toContain("event: message_stop");
    const sent = bed.fakes.router.completionHits()[0]!.body as {
      messages: { role: string; content: unknown }[];
      reasoning_effort?: string;
    };
    expect(sent.reasoning_effort).toBe("medium");
    // The mid-conversation system turn stays where the client put it, as a system message.
    expect(sent.messages.filter((m) => m.role === "system").length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(sent.messages)).toContain(
      "You are a coding assistant in a terminal client",
    );
  });

  it("skips a target whose protocol cannot carry a field, and is a 400 naming it only when no target can", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const served = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty", { n: 2 }),
    );
    expect(served.status).toBe(200);
    expect(served.headers.get("x-planfirst-connection")).toBe("openrouter");
    expect(served.headers.get("x-planfirst-attempts")).toBe("2");
    expect(bed.fakes.plan.completionHits()).toHaveLength(0);

    const refused = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("claude-sonnet-4-5", { n: 2 }),
    );
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe("n");
    expect(bed.fakes.plan.completionHits()).toHaveLength(0);
  });
});

describe("Claude Code's own headers are dropped", () => {
  it("forwards anthropic-version, the merged anthropic-beta list, attribution headers, the user agent and ?beta=true", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const response = await post(
      harness.url,
      "/v1/messages?beta=true",
      messagesBody("claude-sonnet-4-5"),
      {
        "anthropic-version": "2023-06-01",
        "anthropic-beta":
          "claude-code-20250219,oauth-2025-04-20, interleaved-thinking-2025-05-14,context-management-2025-06-27",
        "x-claude-code-session-id": "sess-1",
        "x-claude-code-agent-id": "agent-1",
        "x-claude-code-parent-agent-id": "agent-0",
        "user-agent": "claude-cli/2.1.48 (external, sdk-cli)",
        "x-app": "cli",
      },
    );
    expect(response.status).toBe(200);
    const hit = bed.fakes.plan.completionHits()[0]!;
    expect(hit.query).toBe("beta=true");
    // Every flag once, the connection's OAuth beta among them (order is not part of the contract).
    const betas = hit.headers["anthropic-beta"]!.split(",");
    expect([...betas].sort()).toEqual([
      "claude-code-20250219",
      "context-management-2025-06-27",
      "interleaved-thinking-2025-05-14",
      "oauth-2025-04-20",
    ]);
    expect(hit.headers["anthropic-version"]).toBe("2023-06-01");
    expect(hit.headers["x-claude-code-session-id"]).toBe("sess-1");
    expect(hit.headers["x-claude-code-agent-id"]).toBe("agent-1");
    expect(hit.headers["x-claude-code-parent-agent-id"]).toBe("agent-0");
    expect(hit.headers["user-agent"]).toBe("claude-cli/2.1.48 (external, sdk-cli)");
    expect(hit.auth.header).toBe("authorization");
  });

  it("gives a same-protocol upstream's 4xx body to the client verbatim, the gateway's reason in a header", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const upstreamBody = {
      type: "error",
      error: { type: "not_found_error", message: "model: claude-sonnet-4-5" },
      request_id: "req_011CVerbatim",
    };
    bed.fakes.plan.script([{ status: 404, body: upstreamBody }]);
    const response = await post(harness.url, "/v1/messages", messagesBody("claude-sonnet-4-5"));
    expect(response.status).toBe(404);
    expect(response.headers.get("x-planfirst-reason")).toBe("upstream_rejected_request");
    expect(await response.text()).toBe(JSON.stringify(upstreamBody));
  });
});

describe("count_tokens, model lists and HEAD /", () => {
  it("POST /v1/messages/count_tokens goes to the route's Anthropic upstream; without one that answers, a marked local estimate", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const body = {
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "x".repeat(350) }],
    };
    const viaPlan = await post(harness.url, "/v1/messages/count_tokens?beta=true", body, {
      "anthropic-beta": "token-counting-2024-11-01",
    });
    const hit = bed.fakes.plan.hits.find((h) => h.path === "/v1/messages/count_tokens");
    expect(hit?.query).toBe("beta=true");
    expect(hit?.headers["anthropic-beta"]?.split(",").sort()).toEqual([
      "oauth-2025-04-20",
      "token-counting-2024-11-01",
    ]);
    // The fake, like several Anthropic-compatible servers, has no count_tokens: estimated.
    expect(viaPlan.status).toBe(200);
    expect(viaPlan.headers.get("x-planfirst-estimate")).toBe("true");

    const local = await post(harness.url, "/v1/messages/count_tokens", {
      ...body,
      model: "qwen/qwen3-coder",
    });
    expect(local.status).toBe(200);
    expect(local.headers.get("x-planfirst-estimate")).toBe("true");
    const counted = (await local.json()) as { input_tokens: number };
    expect(counted.input_tokens).toBeGreaterThanOrEqual(100);
    expect(bed.fakes.router.hits).toHaveLength(0);
  });

  it("GET /v1/models answers Codex's, Anthropic's and OpenAI's shapes to each", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const codex = await fetch(`${harness.url}/v1/models?client_version=0.171.0`);
    expect(await codex.json()).toEqual({ models: [] });
    const byOriginator = await fetch(`${harness.url}/v1/models`, {
      headers: { originator: "codex_exec" },
    });
    expect(await byOriginator.json()).toEqual({ models: [] });

    const anthropic = new Anthropic({ baseURL: harness.url, apiKey: "unused", maxRetries: 0 });
    const page = await anthropic.models.list();
    const ids = page.data.map((model) => model.id);
    expect(ids).toContain("auto/thrifty");
    expect(ids).toContain("claude-sonnet-4-5");
    expect(page.data[0]).toMatchObject({ type: "model", display_name: ids[0] });
    expect(Number.isNaN(Date.parse(page.data[0]!.created_at))).toBe(false);
    const raw = (await (
      await fetch(`${harness.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } })
    ).json()) as { has_more: boolean; first_id: string; last_id: string };
    expect(raw).toMatchObject({ has_more: false, first_id: ids[0], last_id: ids.at(-1) });

    const openai = (await (await fetch(`${harness.url}/v1/models`)).json()) as {
      object: string;
      data: { object: string }[];
    };
    expect(openai.object).toBe("list");
    expect(openai.data[0]!.object).toBe("model");
  });

  it("HEAD / answers 200 without credentials while completions still need the key", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes, KEYED),
      env: TEST_ENV,
    });
    const probe = await fetch(`${harness.url}/`, { method: "HEAD" });
    expect(probe.status).toBe(200);
    const without = await post(harness.url, "/v1/messages", messagesBody("claude-sonnet-4-5"));
    expect(without.status).toBe(401);
    const keyed = await post(harness.url, "/v1/messages", messagesBody("claude-sonnet-4-5"), auth);
    expect(keyed.status).toBe(200);
  });
});
