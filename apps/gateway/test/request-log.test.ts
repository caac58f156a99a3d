import { claudeRateLimited } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { requestRecordSchema } from "../src/observability/request-log/request-record";
import { STANDARD_FAKES, standardConfig } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed, waitFor } from "./harness";
import {
  expectNothingSecret,
  INTERN_KEY,
  readRequests,
  SAMPLE_PROMPT,
  sqliteLogBytes,
  TEAM_ENV,
  TEAM_KEY,
  TEAM_SERVER,
  waitForRequests,
} from "./request-log-helpers";

const bed = useTestBed(STANDARD_FAKES);
const hour = 3_600_000;

function teamConfig(overrides: Parameters<typeof standardConfig>[1] = {}) {
  return standardConfig(bed.fakes, { server: TEAM_SERVER, ...overrides });
}

/** The team gateway with its plan login unset: auto/thrifty starts on the cheap rung. */
function startPaidOnly(overrides: Parameters<typeof standardConfig>[1] = {}) {
  return bed.start({ config: teamConfig(overrides), env: { ...TEAM_ENV, PLAN_TOKEN: "" } });
}

describe("the request log keeps one record per request", () => {
  it("a whole answer: key, model asked, rung, connection, model served, attempts, tokens, cost and times", async () => {
    const harness = await startPaidOnly();
    bed.fakes.router.script([
      { usage: { inputTokens: 1000, outputTokens: 500, cachedInputTokens: 200 } },
    ]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty", { messages: [{ role: "user", content: SAMPLE_PROMPT }] }),
      TEAM_KEY,
    );
    expect(response.status).toBe(200);
    const [record] = await readRequests(harness);
    expect(requestRecordSchema.parse(record)).toEqual(record);
    expect(record).toMatchObject({
      at: new Date(harness.clock.now()).toISOString(),
      keyId: "team",
      modelAsked: "auto/thrifty",
      rung: "cheap",
      connection: "openrouter",
      modelServed: "qwen/qwen3-coder",
      attempts: [
        {
          connection: "openrouter",
          model: "qwen/qwen3-coder",
          rung: "cheap",
          outcome: "ok",
          status: 200,
        },
      ],
      status: 200,
      outcome: "served",
      inputTokens: 1000,
      outputTokens: 500,
      cachedInputTokens: 200,
      cacheWriteTokens: 0,
      costUsd: Number(response.headers.get("x-planfirst-cost-usd")),
      // The conversation's own session (a hash of its opening: the client sent no id).
      sessionHash: response.headers.get("x-planfirst-session")?.split(";")[0],
      dropped: [],
      waitedMs: 0,
      stream: false,
    });
    expect(record!.costUsd).toBeGreaterThan(0);
    expect(record!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(record!.ttfbMs).toBe(record!.latencyMs);
    expect(record!.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(record!.sessionHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("a stream: recorded when it ends, with the usage the stream reported and the settled cost, not the reserved one", async () => {
    const harness = await startPaidOnly();
    bed.fakes.router.script([
      { stream: { chunks: ["a", "b", "c"], usage: { inputTokens: 40, outputTokens: 3 } } },
    ]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder", { stream: true, stream_options: { include_usage: true } }),
      TEAM_KEY,
    );
    expect(response.status).toBe(200);
    const reservedUsd = Number(response.headers.get("x-planfirst-cost-usd"));
    await response.text();
    const [record] = await waitForRequests(harness, 1);
    expect(record).toMatchObject({
      modelAsked: "qwen/qwen3-coder",
      rung: "cheap",
      status: 200,
      outcome: "served",
      stream: true,
      inputTokens: 40,
      outputTokens: 3,
    });
    // 40 × $0.20/MTok + 3 × $0.80/MTok
    expect(record!.costUsd).toBe(0.000011);
    expect(record!.costUsd).toBeLessThan(reservedUsd);
    expect(record!.ttfbMs).not.toBeNull();
    expect(record!.ttfbMs!).toBeLessThanOrEqual(record!.latencyMs);
  });

  it("a stream cut by the upstream is recorded as stream_cut, the client having seen 200", async () => {
    const harness = await startPaidOnly();
    bed.fakes.router.script([{ stream: { chunks: ["a", "b", "c", "d"], cutAfter: 2 } }]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder", { stream: true }),
      TEAM_KEY,
    );
    expect(response.status).toBe(200);
    await response.text();
    const [record] = await waitForRequests(harness, 1);
    expect(record).toMatchObject({ status: 200, outcome: "stream_cut", stream: true });
  });

  it("a client that leaves mid-stream: client_closed, with what the upstream billed booked", async () => {
    const harness = await startPaidOnly();
    bed.fakes.router.script(() => ({
      stream: { chunks: Array.from({ length: 100 }, (_, i) => `w${i} `), chunkDelayMs: 50 },
    }));
    const controller = new AbortController();
    const response = await fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...TEAM_KEY },
      body: JSON.stringify(chatBody("qwen/qwen3-coder", { stream: true })),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    const [record] = await waitForRequests(harness, 1);
    expect(record).toMatchObject({ status: 200, outcome: "client_closed", stream: true });
    expect(record!.costUsd).toBeGreaterThan(0);
    expect(record!.ttfbMs).not.toBeNull();
  });

  it("a client that leaves before any answer: 499 client_closed, no first byte", async () => {
    const harness = await startPaidOnly();
    bed.fakes.router.script(() => ({ delayMs: 3_000 }));
    const controller = new AbortController();
    const pending = fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...TEAM_KEY },
      body: JSON.stringify(chatBody("qwen/qwen3-coder")),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await waitFor(() => bed.fakes.router.completionHits().length === 1, {
      what: "the request to reach the upstream",
    });
    controller.abort();
    await pending;
    const [record] = await waitForRequests(harness, 1);
    expect(record).toMatchObject({
      status: 499,
      outcome: "client_closed",
      ttfbMs: null,
      rung: null,
      attempts: [{ connection: "openrouter", outcome: "client_closed", status: null }],
    });
  });

  it("a request that fell through lists every attempt: why it landed on the rung it did", async () => {
    const harness = await bed.start({ config: teamConfig(), env: TEAM_ENV });
    const resetAtMs = harness.clock.now() + hour;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 3600 }),
    ]);
    const escalated = await post(
      harness.url,
      "/v1/messages",
      messagesBody("auto/thrifty"),
      TEAM_KEY,
    );
    expect(escalated.headers.get("x-planfirst-rung")).toBe("cheap");
    const [record] = await readRequests(harness);
    expect(record).toMatchObject({ rung: "cheap", connection: "openrouter", outcome: "served" });
    expect(record!.attempts).toEqual([
      expect.objectContaining({ connection: "claude-plan", rung: "subscription", status: 429 }),
      expect.objectContaining({
        connection: "openrouter",
        rung: "cheap",
        outcome: "ok",
        status: 200,
      }),
    ]);
    expect(record!.attempts[0]!.outcome).not.toBe("ok");
  });

  it("refusals are recorded with their status and code: an exhausted plan pool, a spent budget", async () => {
    const harness = await bed.start({
      config: teamConfig({ subscriptionLadder: { rungBudgetUsd: { cheap: 0.000001 } } }),
      env: TEAM_ENV,
    });
    const resetAtMs = harness.clock.now() + hour;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 3600 }),
    ]);
    const strict = await post(
      harness.url,
      "/v1/messages",
      messagesBody("auto/subscription"),
      TEAM_KEY,
    );
    expect(strict.status).toBe(429);
    const spent = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder"),
      TEAM_KEY,
    );
    expect(spent.status).toBe(429);
    const [budget, pool] = await readRequests(harness);
    expect(pool).toMatchObject({
      modelAsked: "auto/subscription",
      status: 429,
      outcome: "plan_quota_exhausted",
      rung: null,
      connection: null,
      costUsd: 0,
      inputTokens: null,
    });
    expect(pool!.attempts[0]).toMatchObject({ connection: "claude-plan", status: 429 });
    expect(budget).toMatchObject({
      modelAsked: "qwen/qwen3-coder",
      status: 429,
      outcome: "budget_exhausted",
      attempts: [{ connection: "openrouter", outcome: "budget_refused", status: null }],
    });
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
  });

  it("requests refused before dispatch are recorded too; one without a valid key is not", async () => {
    const harness = await startPaidOnly();
    const broken = await fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...TEAM_KEY },
      body: "{not json",
    });
    expect(broken.status).toBe(400);
    const unknown = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("no-such-model"),
      TEAM_KEY,
    );
    expect(unknown.status).toBe(404);
    const anonymous = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
    expect(anonymous.status).toBe(401);
    const records = await readRequests(harness);
    expect(records.map((r) => [r.modelAsked, r.status, r.outcome])).toEqual([
      ["no-such-model", 404, "model_not_found"],
      [null, 400, "invalid_json"],
    ]);
  });
});

describe("GET /v1/requests", () => {
  it("filters by key, model, rung, status, since and until, newest first, within limit", async () => {
    const harness = await bed.start({ config: teamConfig(), env: TEAM_ENV });
    const resetAtMs = harness.clock.now() + 5 * hour;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 5 * 3600 }),
    ]);
    const send = async (model: string, headers: Record<string, string>) => {
      const response = await post(harness.url, "/v1/chat/completions", chatBody(model), headers);
      await response.text();
      harness.clock.advance(60_000);
      return response.status;
    };
    const start = harness.clock.now();
    expect(await send("auto/thrifty", TEAM_KEY)).toBe(200); // plan 429 → cheap
    expect(await send("anthropic/claude-sonnet-4.5", TEAM_KEY)).toBe(200); // premium
    expect(await send("qwen/qwen3-coder", INTERN_KEY)).toBe(200); // cheap
    expect(await send("auto/subscription", TEAM_KEY)).toBe(429);

    const ids = (records: { modelAsked: string | null }[]) => records.map((r) => r.modelAsked);
    expect(ids(await readRequests(harness))).toEqual([
      "auto/subscription",
      "qwen/qwen3-coder",
      "anthropic/claude-sonnet-4.5",
      "auto/thrifty",
    ]);
    expect(ids(await readRequests(harness, { key: "intern" }))).toEqual(["qwen/qwen3-coder"]);
    expect(ids(await readRequests(harness, { rung: "cheap" }))).toEqual([
      "qwen/qwen3-coder",
      "auto/thrifty",
    ]);
    // A model matches what was asked and what served.
    expect(ids(await readRequests(harness, { model: "qwen/qwen3-coder" }))).toEqual([
      "qwen/qwen3-coder",
      "auto/thrifty",
    ]);
    expect(ids(await readRequests(harness, { status: "429" }))).toEqual(["auto/subscription"]);
    expect(ids(await readRequests(harness, { status: "2xx", limit: "2" }))).toEqual([
      "qwen/qwen3-coder",
      "anthropic/claude-sonnet-4.5",
    ]);
    expect(
      ids(
        await readRequests(harness, {
          since: new Date(start + 60_000).toISOString(),
          until: String(start + 180_000),
        }),
      ),
    ).toEqual(["qwen/qwen3-coder", "anthropic/claude-sonnet-4.5"]);

    const bad = await fetch(`${harness.url}/v1/requests?status=teapot`, { headers: TEAM_KEY });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      "status",
    );
    expect((await fetch(`${harness.url}/v1/requests`)).status).toBe(401);
  });

  it("format=jsonl exports one valid record per line", async () => {
    const harness = await startPaidOnly();
    for (let i = 0; i < 3; i++) {
      await (
        await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), TEAM_KEY)
      ).text();
    }
    const response = await fetch(`${harness.url}/v1/requests?format=jsonl`, { headers: TEAM_KEY });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const lines = (await response.text()).trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    for (const line of lines)
      expect(requestRecordSchema.safeParse(JSON.parse(line)).success).toBe(true);
  });

  it("a client key sees only its own requests; an admin key sees all", async () => {
    const harness = await startPaidOnly();
    await (
      await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), TEAM_KEY)
    ).text();
    await (
      await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), INTERN_KEY)
    ).text();
    expect((await readRequests(harness, {}, INTERN_KEY)).map((r) => r.keyId)).toEqual(["intern"]);
    expect(await readRequests(harness, { key: "team" }, INTERN_KEY)).toEqual([]);
    expect((await readRequests(harness, {}, TEAM_KEY)).map((r) => r.keyId)).toEqual([
      "intern",
      "team",
    ]);
  });

  it("with server.requestLog.enabled false nothing is kept and the answer says so", async () => {
    const harness = await startPaidOnly({
      server: { ...TEAM_SERVER, requestLog: { enabled: false } },
    });
    await (
      await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), TEAM_KEY)
    ).text();
    const response = await fetch(`${harness.url}/v1/requests`, { headers: TEAM_KEY });
    expect(await response.json()).toEqual({ object: "list", enabled: false, data: [] });
  });
});

describe("nothing secret is stored", () => {
  it("the SQLite file and the JSONL export hold no configured secret and no prompt", async () => {
    const harness = await bed.start({ config: teamConfig(), env: TEAM_ENV });
    const body = { messages: [{ role: "user", content: SAMPLE_PROMPT }] };
    for (const [path, request] of [
      ["/v1/chat/completions", chatBody("auto/thrifty", body)],
      ["/v1/messages", messagesBody("qwen/qwen3-coder", { ...body, stream: true })],
      ["/v1/chat/completions", chatBody("anthropic/claude-sonnet-4.5", body)],
    ] as const) {
      for (const headers of [TEAM_KEY, INTERN_KEY]) {
        await (await post(harness.url, path, request, headers)).text();
      }
    }
    await waitForRequests(harness, 6);
    expectNothingSecret(sqliteLogBytes(harness));
    const exported = await (
      await fetch(`${harness.url}/v1/requests?format=jsonl`, { headers: TEAM_KEY })
    ).text();
    expect(exported.trimEnd().split("\n")).toHaveLength(6);
    expectNothingSecret(exported);
  });
});
