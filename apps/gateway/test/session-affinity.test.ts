import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import {
  claudeRateLimited,
  type FakeUpstream,
  type Hit,
  serverError,
} from "@planfirst/fake-upstream";
import { afterAll, describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import type { ModelExplanation } from "../src/routing/explain-model";
import { pinKeyOf, sessionHash } from "../src/routing/session-key";
import type { GatewayStatus } from "../src/status/gateway-status";
import { claudeUsagePayload, TEST_ENV } from "./fixtures";
import {
  CLAUDE_HARD_STOP_ENTRY,
  chatBody,
  createClock,
  deleteRedisKeys,
  getJson,
  type Harness,
  post,
  REDIS_URL,
  redisStorage,
  useTestBed,
  waitFor,
} from "./harness";

// ladder.md §16: inside the rung the ladder chose, a conversation's next turn goes where its
// last one was served, while the ladder still admits it there; otherwise it moves and stays.

type Name = "planA" | "planB" | "cheap1" | "cheap2";
const bed = useTestBed<Name>({
  planA: "anthropic",
  planB: "anthropic",
  cheap1: "openai",
  cheap2: "openai",
});

const HOUR = 3_600_000;
const MODEL = "claude-sonnet-4-5";
const ENV = { ...TEST_ENV, PLAN_TOKEN_B: "sk-ant-oat01-second-plan-secret-444" };

/** Two plan logins (rung 0) and one cheap model through two keys (rung 3, same price). */
function sessionConfig(overrides: Partial<GatewayConfigInput> = {}): GatewayConfigInput {
  const plan = (id: string, fake: FakeUpstream, credential: string) => ({
    id,
    provider: "claude",
    authType: "oauth",
    protocol: "anthropic" as const,
    baseUrl: fake.url,
    credential,
    models: [MODEL],
  });
  const cheap = (id: string, fake: FakeUpstream) => ({
    id,
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl: fake.url,
    credential: "env:ROUTER_KEY",
    models: ["vendor/coder"],
  });
  return {
    connections: [
      plan("plan-a", bed.fakes.planA, "env:PLAN_TOKEN"),
      plan("plan-b", bed.fakes.planB, "env:PLAN_TOKEN_B"),
      cheap("cheap-1", bed.fakes.cheap1),
      cheap("cheap-2", bed.fakes.cheap2),
    ],
    catalog: {
      connections: [CLAUDE_HARD_STOP_ENTRY],
      models: [
        { provider: "openrouter", model: "vendor/coder", inputPerMTok: 0.1, outputPerMTok: 0.3 },
      ],
    },
    categories: { paid: ["vendor/*"] },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    ...overrides,
  };
}

/** Turn `n` (from 1) of a chat conversation about `topic`: the whole history, as clients send it. */
function turn(model: string, topic: string, n: number, extra: Record<string, unknown> = {}) {
  const messages: { role: string; content: string }[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `Let us work on ${topic}.` },
  ];
  for (let i = 1; i < n; i++) {
    messages.push({ role: "assistant", content: `step ${i} done` });
    messages.push({ role: "user", content: `go on with step ${i + 1}` });
  }
  return chatBody(model, { messages, ...extra });
}

interface Answer {
  connection: string | null;
  session: string | null;
  attempts: string | null;
}

async function send(harness: Harness, body: unknown, headers: Record<string, string> = {}) {
  const response = await post(harness.url, "/v1/chat/completions", body, headers);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return {
    connection: response.headers.get("x-planfirst-connection"),
    session: response.headers.get("x-planfirst-session"),
    attempts: response.headers.get("x-planfirst-attempts"),
  } satisfies Answer;
}

/** The session hash of an answer's `x-planfirst-session`. */
function sessionOf(answer: Answer): string {
  return answer.session?.slice(0, 16) ?? "(no session header)";
}

/** The `affinity=…[; reason=…]` part of an `x-planfirst-session` value. */
function affinity(answer: Answer): string {
  return answer.session?.replace(/^[0-9a-f]{16}; /, "") ?? "(no session header)";
}

/** Both plans at 50 % used, their 5-hour windows resetting `resetInA` and `resetInB` from now. */
async function planReadings(harness: Harness, resetInA: number, resetInB: number) {
  const now = harness.clock.now();
  bed.fakes.planA.usage(claudeUsagePayload(50, now + resetInA), { endpoint: "claude" });
  bed.fakes.planB.usage(claudeUsagePayload(50, now + resetInB), { endpoint: "claude" });
  await harness.server.gateway.refreshUsage();
}

/** The body of the last completion request `fake` received. */
function lastBody(fake: FakeUpstream): Record<string, unknown> {
  const hit: Hit | undefined = fake.completionHits().at(-1);
  if (!hit) throw new Error("the fake received no completion request");
  return hit.body as Record<string, unknown>;
}

describe("session affinity inside a rung (ladder.md §16)", () => {
  it("soonest reset first on two plan logins: the order flips mid-conversation, the conversation stays; a new one follows the order", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    const first = await send(harness, turn("auto/subscription", "the parser", 1));
    expect(first.connection).toBe("plan-b");
    expect(affinity(first)).toBe("affinity=new");

    harness.clock.advance(200_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR); // plan-a now resets sooner
    const second = await send(harness, turn("auto/subscription", "the parser", 2));
    expect(second.connection).toBe("plan-b");
    expect(affinity(second)).toBe("affinity=hit");
    expect(second.session?.slice(0, 16)).toBe(first.session?.slice(0, 16));
    // The ladder route says where the session goes and why, in the order its request tries.
    const hash = first.session?.slice(0, 16) ?? "";
    const explained = await getJson<ModelExplanation>(
      harness.url,
      `/v1/ladder?model=auto/subscription&session=${hash}`,
    );
    expect(explained.targets.map((target) => target.connection)).toEqual(["plan-b", "plan-a"]);
    expect(explained.session).toMatchObject({
      hash,
      pinned: { connection: "plan-b", model: MODEL, rung: "subscription" },
      affinity: "hit",
      reason: null,
    });
    const plain = await getJson<ModelExplanation>(
      harness.url,
      "/v1/ladder?model=auto/subscription",
    );
    expect(plain.targets.map((target) => target.connection)).toEqual(["plan-a", "plan-b"]);
    expect(plain.session).toBeUndefined();
    const streamed = await send(
      harness,
      turn("auto/subscription", "the parser", 3, { stream: true }),
    );
    expect(streamed.connection).toBe("plan-b");
    expect(affinity(streamed)).toBe("affinity=hit");

    const other = await send(harness, turn("auto/subscription", "the lexer", 1));
    expect(other.connection).toBe("plan-a");
    expect(affinity(other)).toBe("affinity=new");
    expect(other.session?.slice(0, 16)).not.toBe(first.session?.slice(0, 16));
    const otherNext = await send(harness, turn("auto/subscription", "the lexer", 2));
    expect(otherNext.connection).toBe("plan-a");
  });

  it("an exhausted pinned plan loses its sessions at once, and they do not flip back when it returns", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "one", 1))).connection).toBe("plan-b");
    const two = await send(harness, turn("auto/subscription", "two", 1));
    expect(two.connection).toBe("plan-b");

    // plan-b's window runs out under conversation one: the request falls through within itself.
    const resetAtMs = harness.clock.now() + 30 * 60_000;
    bed.fakes.planB.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 1800 }),
    ]);
    const moved = await send(harness, turn("auto/subscription", "one", 2));
    expect(moved.connection).toBe("plan-a");
    expect(affinity(moved)).toBe("affinity=moved; reason=exhausted");
    expect(moved.attempts).toBe("2");
    // Conversation two never tries the exhausted plan: it moves on its next request.
    const explainedTwo = await getJson<ModelExplanation>(
      harness.url,
      `/v1/ladder?model=auto/subscription&session=${sessionOf(two)}`,
    );
    expect(explainedTwo.session).toMatchObject({ affinity: "moved", reason: "exhausted" });
    expect(explainedTwo.session?.why).toContain("exhausted");
    expect(explainedTwo.targets.map((target) => target.connection)).toEqual(["plan-a"]);
    const hitsOfB = bed.fakes.planB.completionHits().length;
    const twoMoved = await send(harness, turn("auto/subscription", "two", 2));
    expect(twoMoved.connection).toBe("plan-a");
    expect(affinity(twoMoved)).toBe("affinity=moved; reason=exhausted");
    expect(twoMoved.attempts).toBe("1");
    expect(bed.fakes.planB.completionHits()).toHaveLength(hitsOfB);

    // plan-b resets and is first in the ladder's order again: the moved sessions stay on plan-a.
    harness.clock.set(resetAtMs + 1_000);
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    const stayed = await send(harness, turn("auto/subscription", "one", 3));
    expect(stayed.connection).toBe("plan-a");
    expect(affinity(stayed)).toBe("affinity=hit");
    expect((await send(harness, turn("auto/subscription", "two", 3))).connection).toBe("plan-a");
    expect((await send(harness, turn("auto/subscription", "three", 1))).connection).toBe("plan-b");
  });

  it("a cooldown that ends: the conversation that moved away stays where it went", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    // No readings: config order, plan-a first. plan-a fails once and cools down for a moment.
    bed.fakes.planA.script([serverError("anthropic")]);
    const first = await send(harness, turn("auto/thrifty", "cooling", 1));
    expect(first.connection).toBe("plan-b");
    harness.clock.advance(60_000); // the cooldown is over: plan-a is first again
    const next = await send(harness, turn("auto/thrifty", "cooling", 2));
    expect(next.connection).toBe("plan-b");
    expect(affinity(next)).toBe("affinity=hit");
    expect((await send(harness, turn("auto/thrifty", "fresh", 1))).connection).toBe("plan-a");
  });

  it("a paid-rung tie broken differently: the conversation keeps its key; it returns to the plan as soon as the plan is back", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    const now = harness.clock.now();
    bed.fakes.planA.usage(claudeUsagePayload(100, now + HOUR), { endpoint: "claude" });
    bed.fakes.planB.usage(claudeUsagePayload(100, now + HOUR), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    bed.fakes.cheap1.script([serverError("openai")]);
    const first = await send(harness, turn("auto/thrifty", "paid", 1));
    expect(first.connection).toBe("cheap-2");
    harness.clock.advance(60_000); // cheap-1 is back first in the tie
    const second = await send(harness, turn("auto/thrifty", "paid", 2));
    expect(second.connection).toBe("cheap-2");
    expect(affinity(second)).toBe("affinity=hit");
    expect((await send(harness, turn("auto/thrifty", "other", 1))).connection).toBe("cheap-1");

    // The plans reset: the paid session goes back to the plan (it costs nothing there).
    harness.clock.set(now + HOUR + 1_000);
    await planReadings(harness, 5 * HOUR, 5 * HOUR);
    const back = await send(harness, turn("auto/thrifty", "paid", 3));
    expect(back.connection).toBe("plan-a");
    expect(affinity(back)).toBe("affinity=moved; reason=ladder");
  });

  it("a session named by the client (x-session-affinity) holds over single-turn requests; two client keys never share one", async () => {
    const harness = await bed.start({
      config: sessionConfig({
        server: {
          apiKeys: [
            { key: "env:CLIENT_KEY", id: "team-a" },
            { key: "env:OTHER_KEY", id: "team-b" },
          ],
        },
      }),
      env: { ...ENV, OTHER_KEY: "pf-client-other-secret-555" },
    });
    const keyA = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}`, "x-session-affinity": "job-7" };
    const keyB = {
      authorization: "Bearer pf-client-other-secret-555",
      "x-session-affinity": "job-7",
    };
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    const a1 = await send(harness, chatBody("auto/subscription"), keyA);
    expect(a1.connection).toBe("plan-b");
    harness.clock.advance(200_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR);
    const a2 = await send(harness, chatBody("auto/subscription"), keyA);
    expect(a2.connection).toBe("plan-b");
    expect(affinity(a2)).toBe("affinity=hit");
    // Explain takes the session the way a request names it, hashed for the caller's key.
    const viaHeaders = await fetch(`${harness.url}/v1/ladder?model=auto/subscription`, {
      headers: keyA,
    });
    const explained = (await viaHeaders.json()) as ModelExplanation;
    expect(explained.session).toMatchObject({ hash: sessionOf(a1), affinity: "hit" });
    expect(explained.targets[0]?.connection).toBe("plan-b");
    const bad = await fetch(`${harness.url}/v1/ladder?model=auto/subscription&session=job-7`, {
      headers: keyA,
    });
    expect(bad.status).toBe(400);
    const b1 = await send(harness, chatBody("auto/subscription"), keyB);
    expect(b1.connection).toBe("plan-a");
    expect(affinity(b1)).toBe("affinity=new");
    expect(b1.session?.slice(0, 16)).not.toBe(a1.session?.slice(0, 16));
    // The header shows a hash only, never what the client sent.
    expect(a1.session).toMatch(/^[0-9a-f]{16}; affinity=new$/);
    // A side request of the session to another model id pins apart: the main pin stays.
    expect((await send(harness, chatBody("vendor/coder"), keyA)).connection).toBe("cheap-1");
    const a3 = await send(harness, chatBody("auto/subscription"), keyA);
    expect(a3.connection).toBe("plan-b");
    expect(affinity(a3)).toBe("affinity=hit");
  });

  it("recognises Claude Code's x-claude-code-session-id on Messages and the Codex CLI's session_id on Responses", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    const messages = await post(
      harness.url,
      "/v1/messages",
      { model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
      { "x-claude-code-session-id": "2b7c0c1e-claude-session" },
    );
    expect(messages.status).toBe(200);
    expect(messages.headers.get("x-planfirst-session")).toBe(
      `${sessionHash("anonymous", "claude-code", "2b7c0c1e-claude-session")}; affinity=new`,
    );
    // Forwarded to the Anthropic upstream as the client sent it.
    expect(bed.fakes.planA.completionHits().at(-1)?.headers["x-claude-code-session-id"]).toBe(
      "2b7c0c1e-claude-session",
    );
    const responses = await post(
      harness.url,
      "/v1/responses",
      { model: "vendor/coder", input: "hi" },
      { session_id: "0199-codex-conversation" },
    );
    expect(responses.status).toBe(200);
    expect(responses.headers.get("x-planfirst-session")).toBe(
      `${sessionHash("anonymous", "openai", "0199-codex-conversation")}; affinity=new`,
    );
  });

  it("forgets a session idle for idleTtlMs: its next turn follows the current order", async () => {
    const harness = await bed.start({
      config: sessionConfig({ subscriptionLadder: { sessionAffinity: { idleTtlMs: 600_000 } } }),
      env: ENV,
    });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "idle", 1))).connection).toBe("plan-b");
    harness.clock.advance(600_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR);
    const later = await send(harness, turn("auto/subscription", "idle", 2));
    expect(later.connection).toBe("plan-a");
    expect(affinity(later)).toBe("affinity=new");
  });

  it("idleTtlMs 0 turns affinity off: no session header, every request follows the order", async () => {
    const harness = await bed.start({
      config: sessionConfig({ subscriptionLadder: { sessionAffinity: { idleTtlMs: 0 } } }),
      env: ENV,
    });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    const first = await send(harness, turn("auto/subscription", "off", 1));
    expect(first.connection).toBe("plan-b");
    expect(first.session).toBeNull();
    harness.clock.advance(200_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR);
    expect((await send(harness, turn("auto/subscription", "off", 2))).connection).toBe("plan-a");
  });

  it("a first turn is a new conversation even when another one opened with the same words", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "same", 1))).connection).toBe("plan-b");
    harness.clock.advance(200_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR);
    const again = await send(harness, turn("auto/subscription", "same", 1));
    expect(again.connection).toBe("plan-a");
    expect(affinity(again)).toBe("affinity=new");
    // Its next turn follows the newer of the two: where the shared opening was served last.
    expect((await send(harness, turn("auto/subscription", "same", 2))).connection).toBe("plan-a");
  });

  it("a failed request pins nothing", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    bed.fakes.planB.script([{ stream: { chunks: ["a", "b", "c"], cutAfter: 1 } }]);
    const cut = await post(
      harness.url,
      "/v1/chat/completions",
      turn("auto/subscription", "cut", 1, { stream: true }),
    );
    expect(cut.status).toBe(200);
    expect(await cut.text()).toContain("upstream_stream_cut");
    harness.clock.advance(200_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR);
    const next = await send(harness, turn("auto/subscription", "cut", 2));
    expect(next.connection).toBe("plan-a");
    expect(affinity(next)).toBe("affinity=new");
  });
});

describe("sessions and cache reads on the status", () => {
  it("counts live sessions per connection, and per paid rung how much input was read from the cache", async () => {
    const harness = await bed.start({ config: sessionConfig(), env: ENV });
    await planReadings(harness, 4 * HOUR, 1 * HOUR);
    await send(harness, turn("auto/subscription", "one", 1));
    await send(harness, turn("auto/subscription", "two", 1));
    harness.clock.advance(200_000);
    await planReadings(harness, 30 * 60_000, 3 * HOUR);
    await send(harness, turn("auto/subscription", "three", 1));
    bed.fakes.cheap1.script(() => ({
      usage: { inputTokens: 1_000, outputTokens: 10, cachedInputTokens: 900 },
    }));
    await send(harness, turn("vendor/coder", "paid", 1));
    await send(harness, turn("vendor/coder", "paid", 2));

    await waitFor(
      async () =>
        (await getJson<GatewayStatus>(harness.url, "/v1/status")).cacheReadsLastHour?.cheap
          ?.inputTokens === 2_000,
      { what: "both settles in the spend records" },
    );
    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const sessionsOf = (id: string) => status.connections.find((c) => c.id === id)?.liveSessions;
    expect(sessionsOf("plan-b")).toBe(2);
    expect(sessionsOf("plan-a")).toBe(1);
    expect(sessionsOf("cheap-1")).toBe(1);
    expect(sessionsOf("cheap-2")).toBe(0);
    expect(status.cacheReadsLastHour?.cheap).toEqual({
      inputTokens: 2_000,
      cachedInputTokens: 1_800,
      cacheWriteTokens: 0,
      readPercent: 90,
    });
    expect(status.cacheReadsLastHour?.premium?.readPercent).toBeNull();
    const page = await (await fetch(`${harness.url}/`)).text();
    const planB = page.slice(page.indexOf('data-connection="plan-b"'));
    expect(planB.slice(0, planB.indexOf("</article>"))).toContain("2 live sessions");
    expect(page).toContain("90% of 2,000 input tokens read from the prompt cache in the last hour");

    // Idle sessions are not live.
    harness.clock.advance(HOUR);
    const later = await getJson<GatewayStatus>(harness.url, "/v1/status");
    expect(later.connections.every((connection) => connection.liveSessions === 0)).toBe(true);
  });
});

describe("sessions shared by replicas on Redis", () => {
  const prefixes: string[] = [];
  afterAll(async () => {
    await Promise.all(prefixes.map((prefix) => deleteRedisKeys(prefix)));
  });

  it("a conversation keeps its connection whichever replica serves it, though the replicas break a price tie differently", async () => {
    const storage = redisStorage();
    prefixes.push(storage.keyPrefix);
    const clock = createClock();
    const one = await bed.start({ config: sessionConfig(), env: ENV, clock, storage });
    const reversed = sessionConfig();
    reversed.connections = [...(reversed.connections ?? [])].reverse();
    const two = await bed.start({ config: reversed, env: ENV, clock, storage });

    const first = await send(one, turn("auto/paid:thrifty", "replicas", 1));
    expect(first.connection).toBe("cheap-1");
    const hash = first.session?.slice(0, 16) ?? "";
    const book = two.server.gateway.deps.sessions;
    await waitFor(
      () => book?.pinOf(pinKeyOf(hash, "auto/paid:thrifty"))?.connectionId === "cheap-1",
      {
        what: "the pin to reach the other replica",
      },
    );
    const second = await send(two, turn("auto/paid:thrifty", "replicas", 2));
    expect(second.connection).toBe("cheap-1");
    expect(affinity(second)).toBe("affinity=hit");
    expect((await send(one, turn("auto/paid:thrifty", "replicas", 3))).connection).toBe("cheap-1");
    // A new conversation on the second replica follows that replica's own order.
    expect((await send(two, turn("auto/paid:thrifty", "fresh", 1))).connection).toBe("cheap-2");
  });

  it("Redis goes away mid-conversation: every request is still served, the pins this replica holds still apply", async () => {
    const relay = await redisRelay();
    const storage = { ...redisStorage(), url: relay.url };
    prefixes.push(storage.keyPrefix);
    try {
      const harness = await bed.start({ config: sessionConfig(), env: ENV, storage });
      await planReadings(harness, 4 * HOUR, 1 * HOUR);
      expect((await send(harness, turn("auto/subscription", "outage", 1))).connection).toBe(
        "plan-b",
      );
      await relay.cut();
      harness.clock.advance(200_000);
      await planReadings(harness, 30 * 60_000, 3 * HOUR);
      const during = await send(harness, turn("auto/subscription", "outage", 2));
      expect(during.connection).toBe("plan-b");
      expect(affinity(during)).toBe("affinity=hit");
      expect((await send(harness, turn("auto/subscription", "new", 1))).connection).toBe("plan-a");
    } finally {
      await relay.cut();
    }
  });
});

/** A TCP relay to the test Redis that can be cut: Redis then looks down to whoever used it. */
async function redisRelay(): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("prompt cache hints on the way upstream", () => {
  it("an OpenAI upstream gets a prompt_cache_key derived from the session when the client sent none; a generic server gets none", async () => {
    const harness = await bed.start({
      config: sessionConfig({
        connections: [
          {
            id: "openai",
            provider: "openai",
            authType: "apikey",
            protocol: "openai",
            baseUrl: bed.fakes.cheap1.url,
            credential: "env:ROUTER_KEY",
            models: ["gpt-5-mini"],
          },
          {
            id: "compatible",
            provider: "deepseek",
            authType: "apikey",
            protocol: "openai",
            baseUrl: bed.fakes.cheap2.url,
            credential: "env:ROUTER_KEY",
            models: ["deepseek-chat"],
          },
        ],
        catalog: {
          models: [
            { provider: "openai", model: "gpt-5-mini", inputPerMTok: 0.25, outputPerMTok: 2 },
            { provider: "deepseek", model: "deepseek-chat", inputPerMTok: 0.3, outputPerMTok: 1 },
          ],
        },
        categories: {},
      }),
      env: ENV,
    });
    const ours = await send(harness, turn("gpt-5-mini", "cache", 1));
    const hash = ours.session?.slice(0, 16);
    expect(lastBody(bed.fakes.cheap1).prompt_cache_key).toBe(`planfirst-${hash}`);
    await send(harness, turn("gpt-5-mini", "cache", 1, { prompt_cache_key: "client-own" }));
    expect(lastBody(bed.fakes.cheap1).prompt_cache_key).toBe("client-own");
    await send(harness, turn("deepseek-chat", "cache", 1));
    expect(lastBody(bed.fakes.cheap2)).not.toHaveProperty("prompt_cache_key");
  });

  it("the operator can say a compatible server takes one (promptCacheKey: true)", async () => {
    const harness = await bed.start({
      config: sessionConfig({
        connections: [
          {
            id: "compatible",
            provider: "deepseek",
            authType: "apikey",
            protocol: "openai",
            baseUrl: bed.fakes.cheap2.url,
            credential: "env:ROUTER_KEY",
            models: ["deepseek-chat"],
            promptCacheKey: true,
          },
        ],
        catalog: {
          models: [
            { provider: "deepseek", model: "deepseek-chat", inputPerMTok: 0.3, outputPerMTok: 1 },
          ],
        },
        categories: {},
      }),
      env: ENV,
    });
    const answer = await send(harness, turn("deepseek-chat", "cache", 1));
    expect(lastBody(bed.fakes.cheap2).prompt_cache_key).toBe(
      `planfirst-${answer.session?.slice(0, 16)}`,
    );
  });
});
