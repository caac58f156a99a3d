import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeGeminiCodeAssist, startFakeGeminiCodeAssist } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PreparedRequest, UpstreamConnector, UsageRequest } from "../connector";
import { mergeBodyFields, PLANFIRST_USER_AGENT } from "../connector";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import type { CredentialPersistence } from "../credential-persistence";
import { createSqliteCredentialPersistence } from "../sqlite-credential-persistence";
import { readLoadCodeAssist } from "./code-assist-project";
import { createGeminiCodeAssistConnector } from "./gemini-code-assist-connector";

let clockMs = Date.UTC(2026, 11, 1, 9, 0, 0);
let fake: FakeGeminiCodeAssist;
let dir: string;
let persistence: CredentialPersistence;
let n = 0;

beforeAll(async () => {
  fake = await startFakeGeminiCodeAssist({ now: () => clockMs });
  dir = await mkdtemp(join(tmpdir(), "planfirst-gemini-"));
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.hits.length = 0;
  fake.failRefreshes = false;
  fake.exhaustedUntilMs = null;
  fake.rateLimitedForMs = null;
  fake.validationRequired = false;
  fake.account.reset();
  // A fresh SQLite file per test: no token carried over from another test.
  persistence = createSqliteCredentialPersistence(join(dir, `credentials-${n++}.db`));
});

function spec(extra: Partial<ConnectorSpec> = {}): ConnectorSpec {
  return {
    id: "gemini-ca",
    provider: "gemini-code-assist",
    authType: "oauth",
    protocol: "gemini",
    baseUrl: fake.baseUrl,
    credential: {
      refreshToken: fake.refreshToken,
      tokenUrl: fake.tokenUrl,
      clientId: fake.clientId,
    },
    ...extra,
  };
}

// Polls 1 ms apart: the operation's answers, not the wait, are what these tests follow.
const onboardingPoll = { intervalMs: 1, maxPolls: 4 };

function connector(extra: Partial<ConnectorSpec> = {}): UpstreamConnector {
  return createGeminiCodeAssistConnector(spec(extra), {
    persistence,
    now: () => clockMs,
    onboardingPoll,
  });
}

const paths = () => fake.hits.map((hit) => hit.path);
const onboardingHits = () =>
  paths().filter((path) => path.endsWith(":onboardUser") || path.includes("/operations/"));

async function refusal(gemini: UpstreamConnector): Promise<ConnectorError> {
  const error = await Promise.resolve()
    .then(() => gemini.prepare({ model: "gemini-2.5-pro", stream: false }))
    .catch((e: unknown) => e);
  expect(ConnectorError.isInstance(error)).toBe(true);
  return error as ConnectorError;
}

const envelope = JSON.stringify({
  model: "gemini-2.5-pro",
  request: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
});

function send(prepared: PreparedRequest) {
  return fetch(prepared.url, {
    method: "POST",
    headers: prepared.headers,
    body: prepared.bodyFields ? mergeBodyFields(envelope, prepared.bodyFields) : envelope,
  });
}

function poll(request: UsageRequest) {
  return fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
}

describe("gemini code assist connector", () => {
  it("refreshes, finds the project once, and sends generation with it; then prepares synchronously", async () => {
    const gemini = connector();
    const first = gemini.prepare({ model: "gemini-2.5-pro", stream: true });
    expect(first).toBeInstanceOf(Promise);
    const prepared = await first;
    expect(prepared.url).toBe(`${fake.baseUrl}:streamGenerateContent?alt=sse`);
    expect(prepared.bodyFields).toEqual({ project: fake.project });
    expect(prepared.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(prepared.headers["user-agent"]).toBe(PLANFIRST_USER_AGENT);
    const response = await send(prepared);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"response"');

    const whole = gemini.prepare({ model: "gemini-2.5-pro", stream: false });
    expect(whole).not.toBeInstanceOf(Promise);
    expect((whole as PreparedRequest).url).toBe(`${fake.baseUrl}:generateContent`);
    expect((await send(whole as PreparedRequest)).status).toBe(200);
    const paths = fake.hits.map((hit) => hit.path);
    expect(paths.filter((p) => p === "/token")).toHaveLength(1);
    expect(paths.filter((p) => p === "/v1internal:loadCodeAssist")).toHaveLength(1);
    const grant = fake.hits.find((hit) => hit.path === "/token")?.body as Record<string, string>;
    expect(grant).toMatchObject({ grant_type: "refresh_token", client_id: fake.clientId });
    expect(grant.client_secret).toBeUndefined();
  });

  it("polls retrieveUserQuota with the project and reads a window per model", async () => {
    const gemini = connector();
    fake.remaining = { "gemini-2.5-pro": 0.25, "gemini-2.5-flash": 1 };
    fake.resetAtMs = clockMs + 3_600_000;
    const request = await gemini.usageRequest();
    expect(request?.method).toBe("POST");
    expect(JSON.parse(request?.body ?? "{}")).toEqual({ project: fake.project });
    const response = await poll(request!);
    expect(response.status).toBe(200);
    const { windows, evidence } = gemini.readUsage(await response.json(), clockMs);
    // Nothing Code Assist answers says whether use past the quota bills: no evidence either way.
    expect(evidence).toBeUndefined();
    expect(windows).toEqual([
      expect.objectContaining({
        windowId: "requests:gemini-2.5-pro",
        remainingPercent: 25,
        resetAt: new Date(clockMs + 3_600_000).toISOString(),
        scope: { model: "gemini-2.5-pro" },
      }),
      expect.objectContaining({ windowId: "requests:gemini-2.5-flash", remainingPercent: 100 }),
    ]);
    fake.remaining = { "gemini-2.5-pro": 0.8 };
    fake.resetAtMs = null;
  });

  it("refreshes before expiry and once after a 401, and keeps the refreshed token in SQLite", async () => {
    const gemini = connector();
    const first = await gemini.prepare({ model: "gemini-2.5-pro", stream: false });
    const refreshes = fake.refreshes;
    clockMs += 3_599_000 - 30_000; // within the minute before the expiry
    const second = await gemini.prepare({ model: "gemini-2.5-pro", stream: false });
    expect(fake.refreshes).toBe(refreshes + 1);
    expect(second.headers.authorization).not.toBe(first.headers.authorization);

    fake.expireAccessTokens();
    expect((await send(second)).status).toBe(401);
    gemini.invalidateCredential(second.headers.authorization?.slice(7));
    const third = await gemini.prepare({ model: "gemini-2.5-pro", stream: false });
    expect(fake.refreshes).toBe(refreshes + 2);
    expect((await send(third)).status).toBe(200);
    const stored = await persistence.read("connection:gemini-ca");
    expect(`Bearer ${stored?.accessToken}`).toBe(third.headers.authorization);
    // Google does not rotate: the same refresh token stays.
    expect(stored?.refreshToken).toBe(fake.refreshToken);
  });

  it("a refused refresh names the connection and the OAuth code, never a token", async () => {
    fake.failRefreshes = true;
    const error = await Promise.resolve(connector().prepare({ model: "m", stream: false })).catch(
      (e: unknown) => e,
    );
    expect(ConnectorError.isInstance(error)).toBe(true);
    const message = (error as ConnectorError).message;
    expect(message).toContain("gemini-ca");
    expect(message).toContain("invalid_grant");
    expect(message).not.toContain(fake.refreshToken);
    expect((error as ConnectorError).code).toBe("credential_refresh_failed");
  });

  it("sends the configured client secret with the refresh grant, and fails clearly without it", async () => {
    const strict = await startFakeGeminiCodeAssist({
      now: () => clockMs,
      clientSecret: "installed-app-secret",
    });
    try {
      const credential = {
        refreshToken: strict.refreshToken,
        tokenUrl: strict.tokenUrl,
        clientId: strict.clientId,
      };
      const withSecret = connector({
        baseUrl: strict.baseUrl,
        credential: { ...credential, clientSecret: "installed-app-secret" },
      });
      const prepared = await withSecret.prepare({ model: "gemini-2.5-pro", stream: false });
      expect((await send(prepared)).status).toBe(200);

      persistence = createSqliteCredentialPersistence(join(dir, `credentials-${n++}.db`));
      const without = connector({ baseUrl: strict.baseUrl, credential });
      const refused = await Promise.resolve()
        .then(() => without.prepare({ model: "gemini-2.5-pro", stream: false }))
        .catch((error: unknown) => error);
      expect(ConnectorError.isInstance(refused)).toBe(true);
      expect(String((refused as Error).message)).toContain("invalid_client");
      expect(String((refused as Error).message)).not.toContain("installed-app-secret");
    } finally {
      await strict.close();
    }
  });

  it("refuses a static key: a Google login is a refreshable credential", () => {
    expect(() => connector({ credential: "ya29.static" })).toThrow(/refreshToken/);
  });

  it("classifies the real error bodies by quota-signals §6b", async () => {
    const gemini = connector();
    const prepared = await gemini.prepare({ model: "gemini-2.5-pro", stream: false });
    const answer = async () => {
      const response = await send(prepared);
      const body = await response.text();
      const read = gemini.readResponse({
        status: response.status,
        headers: {},
        body,
        observedAtMs: clockMs,
        model: "gemini-2.5-pro",
      });
      expect(read.evidence).toBeUndefined();
      return read.failure;
    };
    fake.exhaustedUntilMs = clockMs + 7_200_000;
    expect(await answer()).toMatchObject({
      kind: "window_exhausted",
      code: "QUOTA_EXHAUSTED",
      resetAt: new Date(clockMs + 7_200_000).toISOString(),
    });
    fake.exhaustedUntilMs = null;
    fake.rateLimitedForMs = 1_500;
    expect(await answer()).toMatchObject({
      kind: "rate_limited",
      code: "RATE_LIMIT_EXCEEDED",
      retryAt: new Date(clockMs + 1_500).toISOString(),
    });
    fake.rateLimitedForMs = null;
    fake.validationRequired = true;
    // Needs the account verified by a person: auth, not quota.
    expect(await answer()).toMatchObject({ kind: "auth_invalid", code: "VALIDATION_REQUIRED" });
  });

  it("reads loadCodeAssist's project as a string or an object, and the default tier when not set up", () => {
    expect(
      readLoadCodeAssist({ cloudaicompanionProject: "p-1", currentTier: { id: "free-tier" } }),
    ).toMatchObject({ project: "p-1", tierId: "free-tier" });
    expect(readLoadCodeAssist('{"cloudaicompanionProject":{"id":"p-2"}}')?.project).toBe("p-2");
    expect(
      readLoadCodeAssist({
        allowedTiers: [
          { id: "free-tier", isDefault: true, userDefinedCloudaicompanionProject: false },
          { id: "standard-tier", userDefinedCloudaicompanionProject: true },
        ],
      }),
    ).toEqual({
      project: null,
      tierId: null,
      defaultTier: { id: "free-tier", needsUserProject: false },
      ineligibleReasons: [],
    });
    expect(readLoadCodeAssist("not json")).toBeNull();
  });
});

describe("gemini code assist connector: a login that never set Code Assist up", () => {
  it("onboards the default free tier with no project, polls the operation, and keeps the project", async () => {
    fake.account.setUp = false;
    const prepared = await connector().prepare({ model: "gemini-2.5-pro", stream: false });
    expect(prepared.bodyFields).toEqual({ project: fake.project });
    expect((await send(prepared)).status).toBe(200);
    const onboard = fake.hits.find((hit) => hit.path === "/v1internal:onboardUser");
    // The Gemini CLI's request: the default tier and the metadata, no cloudaicompanionProject.
    expect(onboard?.body).toEqual({
      tierId: "free-tier",
      metadata: {
        ideType: "IDE_UNSPECIFIED",
        platform: "PLATFORM_UNSPECIFIED",
        pluginType: "GEMINI",
      },
    });
    expect(onboardingHits()).toEqual([
      "/v1internal:onboardUser",
      expect.stringMatching(/^\/v1internal\/operations\//),
      expect.stringMatching(/^\/v1internal\/operations\//),
    ]);
    expect((await persistence.read("connection:gemini-ca"))?.fields.project).toBe(fake.project);

    // Another process on the same store asks neither loadCodeAssist nor onboardUser.
    fake.hits.length = 0;
    const restarted = await connector().prepare({ model: "gemini-2.5-pro", stream: true });
    expect(restarted.bodyFields).toEqual({ project: fake.project });
    expect(paths()).toEqual([]);
  });

  it("takes the project from an onboardUser answered done at once, without polling", async () => {
    fake.account.setUp = false;
    fake.account.onboardingPendingAnswers = 0;
    const prepared = await connector().prepare({ model: "gemini-2.5-pro", stream: false });
    expect(prepared.bodyFields).toEqual({ project: fake.project });
    expect(onboardingHits()).toEqual(["/v1internal:onboardUser"]);
  });

  it("gives up an operation not done within its polls, naming the connection and never the token", async () => {
    fake.account.setUp = false;
    fake.account.onboardingPendingAnswers = Number.POSITIVE_INFINITY;
    const error = await refusal(connector());
    expect(error.code).toBe("account_setup_failed");
    expect(error.message).toContain("connection gemini-ca");
    expect(error.message).toContain("not done after 4 polls");
    expect(error.message).not.toMatch(/ya29\.|1\/\//);
    expect(onboardingHits()).toHaveLength(1 + onboardingPoll.maxPolls);
    expect(await persistence.read("connection:gemini-ca")).not.toHaveProperty("fields.project");
  });

  it("a refused onboardUser names the connection and the status", async () => {
    fake.account.setUp = false;
    fake.account.refuseOnboarding = true;
    const error = await refusal(connector());
    expect(error.code).toBe("account_setup_failed");
    expect(error.upstreamStatus).toBe(403);
    expect(error.message).toMatch(/^connection gemini-ca: .*:onboardUser answered 403$/);
  });

  it("does not onboard a tier that needs the user's own project, and says why", async () => {
    fake.account.setUp = false;
    fake.account.freeTierEligible = false;
    const error = await refusal(connector());
    expect(error.code).toBe("account_setup_failed");
    expect(error.message).toContain("standard-tier needs a Google Cloud project of its own");
    expect(error.message).toContain("DASHER_USER");
    expect(onboardingHits()).toEqual([]);
  });
});
