import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  badRequest,
  claudeRateLimited,
  claudeUnifiedHeaders,
  codexHeaders,
  copilotQuotaExceeded,
  credentialLabel,
  type FakeUpstream,
  goDuration,
  openAiRateLimitHeaders,
  startFakeUpstream,
} from "./index";

let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream({ protocol: "both", name: "self-test" });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${upstream.origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe("fake upstream", () => {
  it("answers an OpenAI request with a valid default completion and records the hit", async () => {
    const response = await post(
      "/v1/chat/completions",
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      { authorization: "Bearer sk-test-openrouter-1" },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      id: expect.stringMatching(/^chatcmpl-/),
      choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 1 },
    });
    const [hit] = upstream.hits;
    expect(hit).toMatchObject({
      method: "POST",
      kind: "completion",
      protocol: "openai",
      model: "gpt-4o-mini",
    });
    expect(hit!.auth).toEqual({
      header: "authorization",
      scheme: "Bearer",
      label: credentialLabel("sk-test-openrouter-1"),
    });
    expect(hit!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(upstream.hits)).not.toContain("sk-test-openrouter-1");
  });

  it("streams an Anthropic reply in the real event order and attributes x-api-key", async () => {
    upstream.script([
      { stream: { chunks: ["Hel", "lo"] }, usage: { inputTokens: 30, outputTokens: 2 } },
    ]);
    const response = await post(
      "/v1/messages",
      { model: "claude-sonnet-4-5", max_tokens: 10, stream: true, messages: [] },
      { "x-api-key": "key-a" },
    );
    const text = await response.text();
    const events = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(upstream.hits[0]!.auth).toEqual({ header: "x-api-key", scheme: null, label: "key-a" });
  });

  it("sends the OpenAI usage chunk only when the request asks for it", async () => {
    const withUsage = await (
      await post("/v1/chat/completions", {
        model: "m",
        stream: true,
        stream_options: { include_usage: true },
      })
    ).text();
    const without = await (await post("/v1/chat/completions", { model: "m", stream: true })).text();
    expect(withUsage).toContain('"choices":[],"usage"');
    expect(without).not.toContain('"usage"');
    expect(withUsage.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("cuts a stream after N chunks with no clean end", async () => {
    upstream.script([{ stream: { chunks: ["a", "b", "c", "d"], cutAfter: 2 } }]);
    const response = await post("/v1/chat/completions", { model: "m", stream: true });
    let text = "";
    const error = await (async () => {
      try {
        const decoder = new TextDecoder();
        for await (const chunk of response.body!) text += decoder.decode(chunk as Uint8Array);
        return null;
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).not.toBeNull();
    expect(text).toContain('"content":"b"');
    expect(text).not.toContain('"content":"c"');
    expect(text).not.toContain("[DONE]");
  });

  it("holds a stream open after its opening frame until holdUntil settles", async () => {
    let release: () => void = () => undefined;
    const holdUntil = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.script([{ stream: { chunks: ["a", "b"], holdUntil } }]);
    const response = await post("/v1/chat/completions", { model: "m", stream: true });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const opening = decoder.decode((await reader.read()).value);
    expect(opening).toContain('"role":"assistant"');
    expect(opening).not.toContain('"content":"a"');
    release();
    let rest = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      rest += decoder.decode(next.value);
    }
    expect(rest).toContain('"content":"a"');
    expect(rest).toContain("[DONE]");
  });
  it("serves scripted error replies and handler scripts", async () => {
    upstream.script((request) =>
      request.model === "bad" ? badRequest("anthropic") : copilotQuotaExceeded(),
    );
    const bad = await post("/v1/messages", { model: "bad" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    const quota = await post("/v1/chat/completions", { model: "x" });
    expect(quota.status).toBe(402);
    expect(await quota.json()).toMatchObject({ error: { code: "quota_exceeded" } });
  });

  it("serves usage endpoints only once scripted, and records them", async () => {
    expect((await fetch(`${upstream.origin}/api/oauth/usage`)).status).toBe(404);
    upstream.usage(
      { five_hour: { utilization: 24.0, resets_at: "2026-01-02T19:59:59.600956+00:00" } },
      { endpoint: "claude" },
    );
    const response = await fetch(`${upstream.origin}/api/oauth/usage`, {
      headers: { authorization: "Bearer oat-1" },
    });
    expect(await response.json()).toMatchObject({ five_hour: { utilization: 24 } });
    expect((await fetch(`${upstream.origin}/backend-api/wham/usage`)).status).toBe(404);
    expect(upstream.hits.map((hit) => hit.kind)).toEqual(["usage", "usage", "usage"]);
  });

  it("a Responses upstream answers whole and streamed in the real event order; `both` does not serve it", async () => {
    expect((await post("/v1/responses", { model: "m", input: "hi" })).status).toBe(404);
    const responses = await startFakeUpstream({ protocol: "openai-responses" });
    try {
      const send = (body: unknown) =>
        fetch(`${responses.url}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer key-r" },
          body: JSON.stringify(body),
        });
      const whole = await send({ model: "gpt-5", input: "hi" });
      expect(await whole.json()).toMatchObject({
        object: "response",
        id: expect.stringMatching(/^resp_[0-9a-f]{48}$/),
        status: "completed",
        output: [{ type: "message", role: "assistant", content: [{ text: "ok" }] }],
        usage: { input_tokens: 12, output_tokens: 1, total_tokens: 13 },
      });
      responses.script([{ stream: { chunks: ["Hel", "lo"] } }]);
      const text = await (await send({ model: "gpt-5", input: "hi", stream: true })).text();
      const events = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
      expect(events).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ]);
      const sequence = [...text.matchAll(/"sequence_number":(\d+)/g)].map((m) => Number(m[1]));
      expect(sequence).toEqual(events.map((_, i) => i));
      expect(text).toContain('"text":"Hello"');
      expect(responses.hits.map((hit) => [hit.kind, hit.protocol])).toEqual([
        ["completion", "openai-responses"],
        ["completion", "openai-responses"],
      ]);
    } finally {
      await responses.close();
    }
  });

  it("an openai-only upstream refuses the Anthropic path with 404", async () => {
    const openAiOnly = await startFakeUpstream({ protocol: "openai" });
    try {
      expect(openAiOnly.url).toBe(`${openAiOnly.origin}/v1`);
      const response = await fetch(`${openAiOnly.origin}/v1/messages`, {
        method: "POST",
        body: "{}",
      });
      expect(response.status).toBe(404);
    } finally {
      await openAiOnly.close();
    }
  });
});

describe("quota signal builders", () => {
  it("Claude 429 carries the rejected binding window, its reset and retry-after", () => {
    const reply = claudeRateLimited({ resetAtSec: 1774472400, retryAfterSec: 2094 });
    expect(reply.status).toBe(429);
    expect(reply.headers).toMatchObject({
      "anthropic-ratelimit-unified-status": "rejected",
      "anthropic-ratelimit-unified-5h-status": "rejected",
      "anthropic-ratelimit-unified-5h-utilization": "1",
      "anthropic-ratelimit-unified-5h-reset": "1774472400",
      "anthropic-ratelimit-unified-reset": "1774472400",
      "anthropic-ratelimit-unified-representative-claim": "five_hour",
      "anthropic-ratelimit-unified-overage-status": "rejected",
      "anthropic-ratelimit-unified-overage-disabled-reason": "out_of_credits",
      "retry-after": "2094",
    });
    expect(reply.body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  it("Claude headers with headroom are allowed and name the 5h claim", () => {
    const headers = claudeUnifiedHeaders({
      fiveHour: { utilization: 0.42, resetAtSec: 1_800_000_000 },
    });
    expect(headers["anthropic-ratelimit-unified-status"]).toBe("allowed");
    expect(headers["anthropic-ratelimit-unified-5h-utilization"]).toBe("0.42");
    expect(headers["anthropic-ratelimit-unified-7d-utilization"]).toBeUndefined();
  });

  it("OpenAI resets are Go durations", () => {
    expect(goDuration(12)).toBe("12ms");
    expect(goDuration(1500)).toBe("1.5s");
    expect(goDuration(360_000)).toBe("6m0s");
    expect(goDuration(3_723_000)).toBe("1h2m3s");
    expect(openAiRateLimitHeaders({ tokens: { limit: 10, remaining: 0, resetMs: 9 } })).toEqual({
      "x-ratelimit-limit-tokens": "10",
      "x-ratelimit-remaining-tokens": "0",
      "x-ratelimit-reset-tokens": "9ms",
    });
  });

  it("Codex headers send the empty secondary window as real traffic does", () => {
    const headers = codexHeaders({
      primary: { usedPercent: 22, windowMinutes: 10080, resetAtSec: 1790426679 },
      nowSec: 1790270879,
    });
    expect(headers["x-codex-primary-reset-after-seconds"]).toBe("155800");
    expect(headers["x-codex-secondary-reset-at"]).toBe("");
    expect(headers["x-codex-credits-has-credits"]).toBe("False");
  });
});
