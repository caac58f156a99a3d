import {
  credentialLabel,
  type FakePlanProviders,
  type FakeUpstream,
  startFakePlanProviders,
  startFakeUpstream,
} from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import { PLANFIRST_USER_AGENT } from "../src/connectors/connector";
import { COPILOT_DEFAULT_INTEGRATION_ID } from "../src/connectors/github-copilot/github-copilot-connector";
import type { ModelExplanation } from "../src/routing/explain-model";
import type { GatewayStatus } from "../src/status/gateway-status";
import { codexPlanConnection, codexPlanEnv } from "./fixtures";
import {
  chatBody,
  createClock,
  getJson,
  type Harness,
  post,
  startHarness,
  type TestClock,
} from "./harness";

// Each plan connector against its provider's fake on loopback, through a real gateway over a
// real SQLite file, with a metered OpenAI-compatible fallback on the cheap rung.

const hour = 3_600_000;

/** Operator entry making a plan a verified hard stop (the bundled catalog says `unknown`). */
function hardStop(provider: string) {
  return {
    provider,
    authType: "oauth",
    billing: "subscription" as const,
    overage: "hard-stop" as const,
    reason: `test: paid overage is off on this ${provider} account, so the plan stops at its limit`,
    sources: ["https://example.invalid/terms"],
    reviewed: "2026-11-30",
  };
}

let clock: TestClock;
let plans: FakePlanProviders;
let metered: FakeUpstream;
let running: Harness[] = [];

beforeAll(async () => {
  clock = createClock();
  plans = await startFakePlanProviders({ now: () => clock.now(), accessTokenTtlSec: 3600 });
  metered = await startFakeUpstream({ protocol: "openai", name: "metered" });
});

afterAll(async () => {
  await Promise.all([plans.close(), metered.close()]);
});

beforeEach(() => {
  clock.set(Date.parse("2026-11-30T10:00:00Z"));
  plans.hits.length = 0;
  plans.codex.exhaustedUntilSec = null;
  plans.codex.hasCredits = false;
  plans.codex.failRefreshes(false);
  plans.copilot.exhausted = false;
  plans.zai.exhaustedUntilBeijing = null;
  plans.kimi.failRefreshes(false);
});

afterEach(async () => {
  await Promise.all(running.map((harness) => harness.close()));
  running = [];
  metered.reset();
});

const METERED_KEY = "sk-metered-secret-value-0009";

function meteredConnection() {
  return {
    id: "metered",
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl: metered.url,
    usageUrl: `${metered.url}/api/v1/key`,
    credential: "env:METERED_KEY",
    models: ["qwen/qwen3-coder"],
    timeoutMs: 5_000,
  };
}

async function gateway(
  connections: NonNullable<GatewayConfigInput["connections"]>,
  env: Record<string, string>,
  providers: string[],
): Promise<Harness> {
  const harness = await startHarness({
    clock,
    env: { ...env, METERED_KEY },
    config: {
      connections: [...connections, meteredConnection()],
      catalog: { connections: providers.map(hardStop) },
      subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    },
  });
  running.push(harness);
  return harness;
}

function completionHits(path: string) {
  return plans.hits.filter((hit) => hit.method === "POST" && hit.path === path);
}

async function served(harness: Harness, model: string, extra: Record<string, unknown> = {}) {
  const response = await post(harness.url, "/v1/chat/completions", chatBody(model, extra));
  const text = await response.text();
  return { response, text, rung: response.headers.get("x-planfirst-rung") };
}

function copilotConnection(headers?: Record<string, string>) {
  return {
    id: "copilot",
    provider: "github-copilot",
    authType: "oauth",
    protocol: "openai" as const,
    usageUrl: plans.copilot.userUrl,
    credential: { githubToken: "env:GH_TOKEN", tokenUrl: plans.copilot.tokenUrl },
    models: ["gpt-4.1"],
    timeoutMs: 5_000,
    ...(headers ? { headers } : {}),
  };
}

describe("GitHub Copilot seat", () => {
  it("is served on rung 0 with an exchanged session token, never the GitHub token", async () => {
    const harness = await gateway([copilotConnection()], { GH_TOKEN: plans.copilot.githubToken }, [
      "github-copilot",
    ]);
    const exchangesBefore = plans.copilot.exchanges;
    for (const model of ["gpt-4.1", "auto/subscription", "auto/thrifty"]) {
      const answer = await served(harness, model);
      expect(answer.response.status, model).toBe(200);
      expect(answer.rung, model).toBe("subscription");
      expect(answer.response.headers.get("x-planfirst-connection")).toBe("copilot");
    }
    const hits = completionHits("/copilot/chat/completions");
    expect(hits).toHaveLength(3);
    // Session tokens from the exchange (the fake issues them as `tid=…`), never the GitHub token.
    const github = credentialLabel(plans.copilot.githubToken);
    for (const hit of hits) {
      expect(hit.scheme).toBe("Bearer");
      expect(hit.label).toMatch(/^tid=/);
      expect(hit.label).not.toBe(github);
      // planfirst's own identity: the fake, like Copilot, refuses a request without it.
      expect(hit.headers["editor-version"]).toBe(PLANFIRST_USER_AGENT);
      expect(hit.headers["copilot-integration-id"]).toBe(COPILOT_DEFAULT_INTEGRATION_ID);
    }
    // One exchange serves every request while the session token is valid.
    expect(plans.copilot.exchanges - exchangesBefore).toBe(1);
    expect(harness.logs.join("")).not.toContain(plans.copilot.githubToken);
  });

  it("streams a completion from the seat to the client", async () => {
    const harness = await gateway([copilotConnection()], { GH_TOKEN: plans.copilot.githubToken }, [
      "github-copilot",
    ]);
    const answer = await served(harness, "auto/subscription", { stream: true });
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(answer.rung).toBe("subscription");
    expect(answer.text).toContain('"content":"ok"');
    expect(answer.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const hit = completionHits("/copilot/chat/completions").at(-1)!;
    expect((hit.body as { stream?: unknown }).stream).toBe(true);
    expect(hit.headers["editor-version"]).toBe(PLANFIRST_USER_AGENT);
  });

  it("an integration id Copilot refuses cools the seat with that reason; auto/thrifty is served by the next rung, auto/subscription by no paid one", async () => {
    const harness = await gateway(
      [copilotConnection({ "copilot-integration-id": "planfirst-unregistered" })],
      { GH_TOKEN: plans.copilot.githubToken },
      ["github-copilot"],
    );
    const reason = "Copilot refused the request: unknown Copilot-Integration-Id header";
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    expect(thrifty.response.headers.get("x-planfirst-attempts")).toBe("2");
    const refused = completionHits("/copilot/chat/completions");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.headers["copilot-integration-id"]).toBe("planfirst-unregistered");
    expect(metered.completionHits()).toHaveLength(1);

    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const seat = status.connections.find((connection) => connection.id === "copilot")!;
    expect(seat.cooldowns).toEqual([
      expect.objectContaining({ kind: "misconfigured", model: null, reason }),
    ]);
    expect(Date.parse(seat.cooldownUntil!) - clock.now()).toBe(15 * 60_000);
    const explained = await getJson<ModelExplanation>(harness.url, "/v1/ladder?model=auto/thrifty");
    expect(explained.excluded).toContainEqual(
      expect.objectContaining({ connectionId: "copilot", reason: expect.stringContaining(reason) }),
    );
    expect(harness.logs.join("")).toContain(reason);

    // While it cools the seat is sent nothing; the strict id fails closed, never on a paid rung.
    expect(
      (await served(harness, "auto/thrifty")).response.headers.get("x-planfirst-attempts"),
    ).toBe("1");
    const strict = await served(harness, "auto/subscription");
    expect(strict.response.status).toBe(429);
    expect(strict.text).toContain(reason);
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);
    expect(metered.completionHits()).toHaveLength(2);

    // An operator's fix is tried once the cooldown ends.
    clock.advance(15 * 60_000);
    await served(harness, "auto/thrifty");
    expect(completionHits("/copilot/chat/completions")).toHaveLength(2);
  });

  it("on auto/subscription a refused integration id falls through to the next plan, never to a paid rung", async () => {
    const harness = await gateway(
      [copilotConnection({ "copilot-integration-id": "planfirst-unregistered" }), zaiConnection()],
      { GH_TOKEN: plans.copilot.githubToken, ZAI_KEY: plans.zai.apiKey },
      ["github-copilot"],
    );
    // The seat resets first (the 1st at 00:00 UTC, 14 h away), so it is tried first.
    plans.zai.tokensResetAtMs = clock.now() + 20 * hour;
    await harness.server.gateway.refreshUsage();
    const answer = await served(harness, "auto/subscription");
    plans.zai.tokensResetAtMs = null;
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(answer.response.headers.get("x-planfirst-connection")).toBe("zai");
    expect(answer.response.headers.get("x-planfirst-attempts")).toBe("2");
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);
    expect(metered.completionHits()).toHaveLength(0);
  });

  it("a client's own bad request is answered as its 400 and cools nothing, on auto/thrifty too", async () => {
    const harness = await gateway([copilotConnection()], { GH_TOKEN: plans.copilot.githubToken }, [
      "github-copilot",
    ]);
    // Copilot checks the body against its schema; the gateway passes a temperature through.
    const malformed = { temperature: 7 };
    for (const model of ["gpt-4.1", "auto/thrifty"]) {
      const answer = await served(harness, model, malformed);
      expect(answer.response.status, model).toBe(400);
      expect(JSON.parse(answer.text), model).toMatchObject({
        error: { code: "invalid_request_body" },
      });
    }
    expect(completionHits("/copilot/chat/completions")).toHaveLength(2);
    expect(metered.completionHits()).toHaveLength(0);
    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    expect(status.connections.every((connection) => connection.cooldowns.length === 0)).toBe(true);
    expect((await served(harness, "gpt-4.1")).response.status).toBe(200);
  });

  it("reads quota from the usage poll, escalates on quota_exceeded and gives auto/subscription the monthly reset", async () => {
    const harness = await gateway([copilotConnection()], { GH_TOKEN: plans.copilot.githubToken }, [
      "github-copilot",
    ]);
    plans.copilot.premiumPercentRemaining = 60;
    await harness.server.gateway.refreshUsage();
    const state = harness.server.gateway.deps.quotaCache.get("github-copilot", "copilot");
    expect(state?.status).toBe("available");
    expect(state?.remainingPercent).toBe(60);

    plans.copilot.exhausted = true;
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);

    const subscription = await served(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    const resetMs = Date.parse(plans.copilot.resetDateUtc);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((resetMs - clock.now()) / 1000),
    );
    // Cooling until the reset: the seat is sent nothing more.
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);
    plans.copilot.premiumPercentRemaining = 80;
  });

  it("exchanges a new session token past expiry and after a server-side revocation, with no failed request", async () => {
    const harness = await gateway([copilotConnection()], { GH_TOKEN: plans.copilot.githubToken }, [
      "github-copilot",
    ]);
    expect((await served(harness, "gpt-4.1")).response.status).toBe(200);
    const first = plans.copilot.exchanges;
    clock.advance(hour); // past the 30 min session token
    expect((await served(harness, "gpt-4.1")).rung).toBe("subscription");
    expect(plans.copilot.exchanges).toBe(first + 1);

    plans.copilot.expireSessionTokens(); // GitHub revokes it early: a 401, one exchange, a retry
    const again = await served(harness, "gpt-4.1");
    expect(again.response.status).toBe(200);
    expect(again.rung).toBe("subscription");
    expect(plans.copilot.exchanges).toBe(first + 2);
    const hits = completionHits("/copilot/chat/completions");
    expect(hits.at(-2)?.label).not.toBe(hits.at(-1)?.label);
  });
});

function zaiConnection() {
  return {
    id: "zai",
    provider: "zai",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl: plans.zai.baseUrl,
    usageUrl: plans.zai.usageUrl,
    credential: "env:ZAI_KEY",
    models: ["glm-4.6"],
    timeoutMs: 5_000,
  };
}

async function responses(harness: Harness, model: string) {
  const response = await post(harness.url, "/v1/responses", {
    model,
    input: "hello",
    stream: true,
  });
  const text = await response.text();
  return { response, text, rung: response.headers.get("x-planfirst-rung") };
}

describe("ChatGPT plan through the Codex backend", () => {
  it("is served on rung 0 over Responses, with the account id and quota from the x-codex headers", async () => {
    const harness = await gateway(
      [codexPlanConnection(plans, { timeoutMs: 5_000 })],
      codexPlanEnv(plans),
      ["codex"],
    );
    const answer = await responses(harness, "gpt-5-codex");
    expect(answer.response.status, answer.text).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(answer.text).toContain("response.completed");
    const hit = completionHits("/backend-api/codex/responses").at(-1);
    expect(hit?.headers["chatgpt-account-id"]).toBe(plans.codex.accountId);
    expect(hit?.headers.originator).toBeUndefined(); // planfirst never claims to be Codex
    const state = harness.server.gateway.deps.quotaCache.get("codex", "chatgpt");
    expect(state?.remainingPercent).toBe(70); // binding window: weekly at 30 % used
    // The in-band codex.rate_limits event was read too, after the headers.
    expect(state?.windows.some((window) => window.source === "event")).toBe(true);
  });

  it("refreshes the access token before it expires, mid-traffic, with no failed request", async () => {
    const harness = await gateway(
      [codexPlanConnection(plans, { timeoutMs: 5_000 })],
      codexPlanEnv(plans),
      ["codex"],
    );
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    const refreshes = plans.codex.refreshes;
    clock.advance(2 * hour); // the seeded token is past its JWT exp
    const after = await responses(harness, "gpt-5-codex");
    expect(after.response.status, after.text).toBe(200);
    expect(after.rung).toBe("subscription");
    expect(plans.codex.refreshes).toBe(refreshes + 1);
    // The rotated refresh token was persisted: a second expiry refreshes again with it.
    clock.advance(2 * hour);
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    expect(plans.codex.refreshes).toBe(refreshes + 2);
  });

  it("usage_limit_reached escalates on auto/thrifty and gives auto/subscription its resets_at", async () => {
    const harness = await gateway(
      [codexPlanConnection(plans, { timeoutMs: 5_000 })],
      codexPlanEnv(plans),
      ["codex"],
    );
    const resetSec = Math.floor(clock.now() / 1000) + 3 * 3600;
    plans.codex.exhaustedUntilSec = resetSec;
    const thrifty = await served(harness, "auto/thrifty", { stream: true });
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    const subscription = await responses(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((resetSec * 1000 - clock.now()) / 1000),
    );
  });

  it("a refresh that fails cools only that connection: the request falls through and the other plan keeps serving", async () => {
    const harness = await gateway(
      [codexPlanConnection(plans, { timeoutMs: 5_000 }), zaiConnection()],
      { ...codexPlanEnv(plans), ZAI_KEY: plans.zai.apiKey },
      ["codex"],
    );
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    plans.codex.failRefreshes(true);
    clock.advance(2 * hour);
    const codexHitsBefore = completionHits("/backend-api/codex/responses").length;
    const fell = await served(harness, "auto/thrifty", { stream: true });
    expect(fell.response.status).toBe(200);
    expect(fell.response.headers.get("x-planfirst-connection")).not.toBe("chatgpt");
    const zai = await served(harness, "auto/subscription");
    expect(zai.response.status).toBe(200);
    expect(zai.response.headers.get("x-planfirst-connection")).toBe("zai");
    // The expired token was never sent: nothing reached the Codex backend.
    expect(completionHits("/backend-api/codex/responses")).toHaveLength(codexHitsBefore);
    const logs = harness.logs.join("");
    expect(logs).toContain("connection chatgpt");
    expect(logs).not.toContain(codexPlanEnv(plans).CODEX_REFRESH.slice(0, 12));
  });

  it("credits on the account make the plan one that can bill: auto/subscription stops using it", async () => {
    const harness = await gateway(
      [codexPlanConnection(plans, { timeoutMs: 5_000 })],
      codexPlanEnv(plans),
      ["codex"],
    );
    plans.codex.hasCredits = true;
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    const hits = completionHits("/backend-api/codex/responses").length;
    const subscription = await responses(harness, "auto/subscription");
    expect(subscription.response.status).not.toBe(200);
    expect(completionHits("/backend-api/codex/responses")).toHaveLength(hits);
    const thrifty = await served(harness, "auto/thrifty", { stream: true });
    expect(thrifty.response.status).toBe(200);
  });
});

describe("z.ai coding plan", () => {
  it("is served on rung 0 (a hard stop in the catalog) and reads the 5 h window from the usage poll", async () => {
    const harness = await gateway([zaiConnection()], { ZAI_KEY: plans.zai.apiKey }, []);
    plans.zai.tokensPercentUsed = 35;
    await harness.server.gateway.refreshUsage();
    const state = harness.server.gateway.deps.quotaCache.get("zai", "zai");
    expect(state?.remainingPercent).toBe(65);
    const answer = await served(harness, "auto/subscription");
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(completionHits("/api/coding/paas/v4/chat/completions").at(-1)?.scheme).toBe("Bearer");
    plans.zai.tokensPercentUsed = 20;
  });

  it("1308 escalates on auto/thrifty and gives auto/subscription the Beijing-time reset", async () => {
    const harness = await gateway([zaiConnection()], { ZAI_KEY: plans.zai.apiKey }, []);
    // 2026-11-30 21:00 in Beijing (UTC+8, written without an offset) is 13:00 UTC.
    plans.zai.exhaustedUntilBeijing = "2026-11-30 21:00:00";
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    const subscription = await served(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((Date.parse("2026-11-30T13:00:00Z") - clock.now()) / 1000),
    );
  });

  it("a key the monitor API refuses inside a 200 cools the connection as auth_invalid", async () => {
    const harness = await gateway([zaiConnection()], { ZAI_KEY: "zai-wrong-key-0000.ffff" }, []);
    const outcomes = await harness.server.gateway.refreshUsage();
    expect(outcomes.find((o) => o.connectionId === "zai")?.status).toBe("failed");
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("zai")).toBe(true);
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.rung).toBe("cheap");
    expect(completionHits("/api/coding/paas/v4/chat/completions")).toHaveLength(0);
  });
});

describe("Kimi Code plan (OAuth login)", () => {
  function kimiConnection() {
    return {
      id: "kimi",
      provider: "kimi",
      authType: "oauth",
      protocol: "openai" as const,
      baseUrl: plans.kimi.baseUrl,
      credential: {
        refreshToken: "env:KIMI_REFRESH",
        accessToken: "env:KIMI_ACCESS",
        tokenUrl: plans.kimi.tokenUrl,
        clientId: plans.kimi.clientId,
      },
      models: ["kimi-for-coding"],
      timeoutMs: 5_000,
    };
  }
  function kimiEnv() {
    const login = plans.kimi.issueLogin();
    return { KIMI_REFRESH: login.refreshToken, KIMI_ACCESS: login.accessToken };
  }

  it("reads the string-number usage, and a 401 on a revoked token refreshes once and serves the same request", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    plans.kimi.sessionUsed = 40;
    await harness.server.gateway.refreshUsage();
    const state = harness.server.gateway.deps.quotaCache.get("kimi", "kimi");
    expect(state?.remainingPercent).toBe(60);
    expect((await served(harness, "auto/subscription")).rung).toBe("subscription");

    const refreshes = plans.kimi.refreshes;
    plans.kimi.expireAccessTokens();
    const answer = await served(harness, "auto/subscription");
    expect(answer.response.status, answer.text).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(plans.kimi.refreshes).toBe(refreshes + 1);
    plans.kimi.sessionUsed = 10;
  });

  it("a usage poll refused with a 401 refreshes the login once and reads the usage", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    expect((await served(harness, "kimi-for-coding")).response.status).toBe(200);
    const refreshes = plans.kimi.refreshes;
    plans.kimi.expireAccessTokens();
    const outcomes = await harness.server.gateway.refreshUsage();
    expect(outcomes.find((o) => o.connectionId === "kimi")?.status).toBe("refreshed");
    expect(plans.kimi.refreshes).toBe(refreshes + 1);
    expect(harness.server.gateway.deps.quotaCache.get("kimi", "kimi")?.status).toBe("available");
    const usageHits = plans.hits.filter((hit) => hit.path === "/coding/v1/usages");
    expect(usageHits.at(-2)?.label).not.toBe(usageHits.at(-1)?.label);
  });

  it("a refused refresh cools only Kimi; auto/thrifty climbs to the metered rung", async () => {
    const harness = await gateway([kimiConnection()], kimiEnv(), ["kimi"]);
    plans.kimi.failRefreshes(true);
    plans.kimi.expireAccessTokens();
    const answer = await served(harness, "auto/thrifty");
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("cheap");
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("kimi")).toBe(true);
    expect(harness.server.gateway.deps.cooldowns.isCoolingDown("metered")).toBe(false);
  });
});
