import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FakeGeminiCodeAssist,
  type FakeUpstream,
  startFakeGeminiCodeAssist,
  startFakeUpstream,
} from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import {
  chatBody,
  createClock,
  type Harness,
  type HarnessOptions,
  messagesBody,
  post,
  startHarness,
  type TestClock,
} from "./harness";

// A Gemini Code Assist login on rung 0 (protocol `gemini`) serving OpenAI chat and Anthropic
// Messages clients through the hub, against the Code Assist fake on loopback, through a real
// gateway over a real SQLite file, with a metered OpenAI-compatible fallback on the cheap rung.

const hour = 3_600_000;
const METERED_KEY = "sk-metered-secret-value-0009";

let clock: TestClock;
let gemini: FakeGeminiCodeAssist;
let metered: FakeUpstream;
let running: Harness[] = [];

beforeAll(async () => {
  clock = createClock();
  gemini = await startFakeGeminiCodeAssist({ now: () => clock.now() });
  metered = await startFakeUpstream({ protocol: "openai", name: "metered" });
});

afterAll(async () => {
  await Promise.all([gemini.close(), metered.close()]);
});

beforeEach(() => {
  clock.set(Date.parse("2026-11-30T10:00:00Z"));
  gemini.hits.length = 0;
  gemini.exhaustedUntilMs = null;
  gemini.rateLimitedForMs = null;
  gemini.failRefreshes = false;
  gemini.remaining = { "gemini-2.5-pro": 0.8 };
  gemini.account.reset();
});

afterEach(async () => {
  await Promise.all(running.map((harness) => harness.close()));
  running = [];
  metered.reset();
});

// Onboarding polls 1 ms apart: the operation's answers, not the wait, are under test.
const onboardingPoll = { intervalMs: 1, maxPolls: 3 };

async function gateway(
  options: Pick<HarnessOptions, "storage" | "onboardingPoll"> = {},
): Promise<Harness> {
  const harness = await startHarness({
    clock,
    ...options,
    env: { GEMINI_REFRESH: gemini.refreshToken, METERED_KEY },
    config: {
      connections: [
        {
          id: "gemini-ca",
          provider: "gemini-code-assist",
          authType: "oauth",
          protocol: "gemini",
          baseUrl: gemini.baseUrl,
          credential: {
            refreshToken: "env:GEMINI_REFRESH",
            tokenUrl: gemini.tokenUrl,
            clientId: gemini.clientId,
          },
          models: ["gemini-2.5-pro"],
          timeoutMs: 5_000,
        },
        {
          id: "metered",
          provider: "openrouter",
          authType: "apikey",
          protocol: "openai",
          baseUrl: metered.url,
          usageUrl: `${metered.url}/api/v1/key`,
          credential: "env:METERED_KEY",
          models: ["qwen/qwen3-coder"],
          timeoutMs: 5_000,
        },
      ],
      // The bundled catalog says `unknown`; the operator vouches that this account stops at its quota.
      catalog: {
        connections: [
          {
            provider: "gemini-code-assist",
            authType: "oauth",
            billing: "subscription",
            overage: "hard-stop",
            reason: "test: this Code Assist licence stops at its quota",
            sources: ["https://example.invalid/terms"],
            reviewed: "2026-11-30",
          },
        ],
      },
      subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    },
  });
  running.push(harness);
  return harness;
}

function generationHits() {
  return gemini.hits.filter(
    (hit) => hit.path.endsWith("GenerateContent") || hit.path.endsWith("generateContent"),
  );
}

async function chat(harness: Harness, model: string, extra: Record<string, unknown> = {}) {
  const response = await post(harness.url, "/v1/chat/completions", chatBody(model, extra));
  return { response, text: await response.text(), rung: response.headers.get("x-planfirst-rung") };
}

describe("Gemini Code Assist login", () => {
  it("serves OpenAI chat and Anthropic Messages clients on rung 0, whole and streamed", async () => {
    const harness = await gateway();

    const whole = await chat(harness, "gemini-2.5-pro");
    expect(whole.response.status, whole.text).toBe(200);
    expect(whole.rung).toBe("subscription");
    expect(whole.response.headers.get("x-planfirst-connection")).toBe("gemini-ca");
    const completion = JSON.parse(whole.text);
    expect(completion.choices[0].message.content).toBe("Hello from Gemini.");
    expect(completion.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 12 });

    const streamed = await chat(harness, "auto/subscription", { stream: true });
    expect(streamed.response.status, streamed.text).toBe(200);
    expect(streamed.rung).toBe("subscription");
    expect(streamed.text).toContain('"reasoning_content":"Weighing it up."');
    expect(streamed.text).toContain('"content":"Hello fro"');
    expect(streamed.text.trimEnd().endsWith("data: [DONE]")).toBe(true);

    const message = await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
    const messageBody = (await message.json()) as { content: unknown; stop_reason: string };
    expect(message.status, JSON.stringify(messageBody)).toBe(200);
    expect(messageBody.content).toEqual([{ type: "text", text: "Hello from Gemini." }]);
    expect(messageBody.stop_reason).toBe("end_turn");

    const messageStream = await post(
      harness.url,
      "/v1/messages",
      messagesBody("gemini-2.5-pro", { stream: true }),
    );
    const messageText = await messageStream.text();
    expect(messageStream.status, messageText).toBe(200);
    expect(messageText).toContain("event: message_stop");
    expect(messageText).toContain('"text":"m Gemini."');

    const hits = generationHits();
    expect(hits.map((hit) => `${hit.path}?${hit.query}`)).toEqual([
      "/v1internal:generateContent?",
      "/v1internal:streamGenerateContent?alt=sse",
      "/v1internal:generateContent?",
      "/v1internal:streamGenerateContent?alt=sse",
    ]);
    for (const hit of hits) {
      const body = hit.body as Record<string, unknown>;
      expect(body.project).toBe(gemini.project);
      expect(body.model).toBe("gemini-2.5-pro");
      expect((body.request as Record<string, unknown>).contents).toEqual([
        { role: "user", parts: [{ text: "hello" }] },
      ]);
    }
    // One refresh and one loadCodeAssist serve all four; no token reaches the logs.
    expect(gemini.hits.filter((hit) => hit.path === "/token")).toHaveLength(1);
    expect(gemini.hits.filter((hit) => hit.path === "/v1internal:loadCodeAssist")).toHaveLength(1);
    const logs = harness.logs.join("");
    expect(logs).not.toContain(gemini.refreshToken);
    expect(logs).not.toContain("ya29.fake-");
  });

  it("reads per-model quota from retrieveUserQuota", async () => {
    const harness = await gateway();
    gemini.remaining = { "gemini-2.5-pro": 0.35 };
    await harness.server.gateway.refreshUsage();
    const poll = gemini.hits.find((hit) => hit.path === "/v1internal:retrieveUserQuota");
    expect(poll?.body).toEqual({ project: gemini.project });
    const state = harness.server.gateway.deps.quotaCache.get(
      "gemini-code-assist",
      "gemini-ca",
      "gemini-2.5-pro",
    );
    expect(state?.remainingPercent).toBe(35);
    expect(state?.windows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ windowId: "requests:gemini-2.5-pro", remainingPercent: 35 }),
      ]),
    );
  });

  it("QUOTA_EXHAUSTED escalates on auto/thrifty and gives auto/subscription its quotaResetTimeStamp", async () => {
    const harness = await gateway();
    const resetMs = clock.now() + 3 * hour;
    gemini.exhaustedUntilMs = resetMs;
    const thrifty = await chat(harness, "auto/thrifty", { stream: true });
    expect(thrifty.response.status, thrifty.text).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    expect(generationHits()).toHaveLength(1);

    const subscription = await chat(harness, "auto/subscription");
    expect(subscription.response.status, subscription.text).toBe(429);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((resetMs - clock.now()) / 1000),
    );
    // Cooling until the reset: the exhausted login is sent nothing more.
    expect(generationHits()).toHaveLength(1);
  });

  it("refreshes the token before it expires and after a server-side revocation, with no failed request", async () => {
    const harness = await gateway();
    expect((await chat(harness, "gemini-2.5-pro")).response.status).toBe(200);
    const first = gemini.refreshes;
    clock.advance(hour); // past the 3599 s access token
    const later = await chat(harness, "gemini-2.5-pro", { stream: true });
    expect(later.response.status, later.text).toBe(200);
    expect(later.rung).toBe("subscription");
    expect(gemini.refreshes).toBe(first + 1);

    gemini.expireAccessTokens(); // Google revokes it early: a 401, one refresh, the same target again
    const again = await chat(harness, "auto/subscription");
    expect(again.response.status, again.text).toBe(200);
    expect(again.rung).toBe("subscription");
    expect(gemini.refreshes).toBe(first + 2);
    // Four sends: the first token, the refreshed one, the same refused (401), the next one.
    const labels = generationHits().map((hit) => hit.label);
    expect(labels).toHaveLength(4);
    expect(new Set(labels).size).toBe(3);
    expect(labels[1]).toBe(labels[2]);
  });

  it("a refresh that fails cools only this login: auto/thrifty falls through to the metered rung", async () => {
    const harness = await gateway();
    expect((await chat(harness, "gemini-2.5-pro")).response.status).toBe(200);
    gemini.failRefreshes = true;
    clock.advance(hour);
    const before = generationHits().length;
    const fell = await chat(harness, "auto/thrifty");
    expect(fell.response.status, fell.text).toBe(200);
    expect(fell.response.headers.get("x-planfirst-connection")).toBe("metered");
    expect(generationHits()).toHaveLength(before);
    const logs = harness.logs.join("");
    expect(logs).toContain("connection gemini-ca");
    expect(logs).not.toContain(gemini.refreshToken);
  });
});

describe("Gemini Code Assist login that never set Code Assist up", () => {
  const onboardHits = () => gemini.hits.filter((hit) => hit.path === "/v1internal:onboardUser");
  const pollHits = () =>
    gemini.hits.filter((hit) => hit.path.startsWith("/v1internal/operations/"));
  const loadHits = () => gemini.hits.filter((hit) => hit.path === "/v1internal:loadCodeAssist");

  it("is onboarded to the free tier (operation polled) and serves, whole and streamed", async () => {
    gemini.account.setUp = false;
    const harness = await gateway({ onboardingPoll });
    const whole = await chat(harness, "gemini-2.5-pro");
    expect(whole.response.status, whole.text).toBe(200);
    expect(JSON.parse(whole.text).choices[0].message.content).toBe("Hello from Gemini.");
    expect(whole.response.headers.get("x-planfirst-connection")).toBe("gemini-ca");
    const streamed = await chat(harness, "auto/subscription", { stream: true });
    expect(streamed.response.status, streamed.text).toBe(200);
    expect(streamed.text.trimEnd().endsWith("data: [DONE]")).toBe(true);

    // The default tier, no project (the free tier's is managed), polled until done, once.
    expect(onboardHits().map((hit) => hit.body)).toEqual([
      {
        tierId: "free-tier",
        metadata: {
          ideType: "IDE_UNSPECIFIED",
          platform: "PLATFORM_UNSPECIFIED",
          pluginType: "GEMINI",
        },
      },
    ]);
    expect(pollHits()).toHaveLength(2);
    expect(loadHits()).toHaveLength(1);
    const projects = generationHits().map((hit) => (hit.body as { project?: unknown }).project);
    expect(projects).toEqual([gemini.project, gemini.project]);
  });

  it("keeps the project in the SQLite file: a restarted gateway serves without asking again", async () => {
    gemini.account.setUp = false;
    const dir = mkdtempSync(join(tmpdir(), "planfirst-gemini-restart-"));
    try {
      const storage = { driver: "sqlite" as const, path: join(dir, "state.db") };
      const first = await gateway({ storage, onboardingPoll });
      expect((await chat(first, "gemini-2.5-pro")).response.status).toBe(200);
      expect(onboardHits()).toHaveLength(1);
      await first.close();
      running = running.filter((harness) => harness !== first);

      gemini.hits.length = 0;
      const second = await gateway({ storage, onboardingPoll });
      const served = await chat(second, "gemini-2.5-pro", { stream: true });
      expect(served.response.status, served.text).toBe(200);
      expect(served.rung).toBe("subscription");
      expect(gemini.hits.map((hit) => hit.path)).toEqual(["/v1internal:streamGenerateContent"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is onboarded by the first usage poll too, and requests then need no setup", async () => {
    gemini.account.setUp = false;
    const harness = await gateway({ onboardingPoll });
    await harness.server.gateway.refreshUsage();
    const poll = gemini.hits.find((hit) => hit.path === "/v1internal:retrieveUserQuota");
    expect(poll?.body).toEqual({ project: gemini.project });
    expect(onboardHits()).toHaveLength(1);
    expect((await chat(harness, "gemini-2.5-pro")).response.status).toBe(200);
    expect(loadHits()).toHaveLength(1);
    expect(onboardHits()).toHaveLength(1);
  });

  it("onboards once for concurrent first requests", async () => {
    gemini.account.setUp = false;
    const harness = await gateway({ onboardingPoll });
    const answers = await Promise.all([
      chat(harness, "gemini-2.5-pro"),
      chat(harness, "auto/subscription", { stream: true }),
      chat(harness, "gemini-2.5-pro"),
    ]);
    for (const answer of answers) expect(answer.response.status, answer.text).toBe(200);
    expect(loadHits()).toHaveLength(1);
    expect(onboardHits()).toHaveLength(1);
    expect(generationHits()).toHaveLength(3);
  });

  it("an onboarding never done within its polls cools only this login: auto/thrifty falls through", async () => {
    gemini.account.setUp = false;
    gemini.account.onboardingPendingAnswers = Number.POSITIVE_INFINITY;
    const harness = await gateway({ onboardingPoll });
    const fell = await chat(harness, "auto/thrifty");
    expect(fell.response.status, fell.text).toBe(200);
    expect(fell.response.headers.get("x-planfirst-connection")).toBe("metered");
    expect(pollHits()).toHaveLength(onboardingPoll.maxPolls);
    expect(generationHits()).toHaveLength(0);
    const logs = harness.logs.join("");
    expect(logs).toContain(
      "connection gemini-ca: Code Assist onboarding (tier free-tier) was not done",
    );
    expect(logs).not.toContain(gemini.refreshToken);
    expect(logs).not.toContain("ya29.fake-");

    // Cooled: the next request goes straight to the metered rung, which stays in service.
    const next = await chat(harness, "auto/thrifty");
    expect(next.response.headers.get("x-planfirst-connection")).toBe("metered");
    expect(onboardHits()).toHaveLength(1);
  });

  it("a refused onboarding cools only this login: auto/thrifty falls through, the error names it", async () => {
    gemini.account.setUp = false;
    gemini.account.refuseOnboarding = true;
    const harness = await gateway({ onboardingPoll });
    const fell = await chat(harness, "auto/thrifty", { stream: true });
    expect(fell.response.status, fell.text).toBe(200);
    expect(fell.response.headers.get("x-planfirst-connection")).toBe("metered");
    expect(harness.logs.join("")).toMatch(/connection gemini-ca: \S+:onboardUser answered 403/);
    expect(harness.logs.join("")).not.toContain("ya29.fake-");
    const subscription = await chat(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    expect(onboardHits()).toHaveLength(1);
    // The account's own setup is wrong, not its login: a short cooldown that names it, so an
    // operator's or Google's fix is tried again within minutes, not after a day.
    const status = (await (await fetch(`${harness.url}/v1/status`)).json()) as GatewayStatus;
    const login = status.connections.find((connection) => connection.id === "gemini-ca")!;
    expect(login.cooldowns).toEqual([
      expect.objectContaining({
        kind: "misconfigured",
        reason: expect.stringMatching(/connection gemini-ca: \S+:onboardUser answered 403/),
      }),
    ]);
    expect(Date.parse(login.cooldownUntil!) - clock.now()).toBe(15 * 60_000);
  });
});
