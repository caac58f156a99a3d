import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakePlanProviders, startFakePlanProviders } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { applyBodyRules, type BodyRules } from "../../protocols/body-rules";
import type { ConnectorCall, PreparedRequest, UpstreamConnector } from "../connector";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import {
  createSqliteCredentialPersistence,
  type SqliteCredentialPersistence,
} from "../sqlite-credential-persistence";
import { codexUsageUrl, createCodexConnector } from "./codex-connector";

let clockMs = Date.UTC(2026, 11, 1, 9, 0, 0);
let fakes: FakePlanProviders;
let dir: string;
let persistence: SqliteCredentialPersistence;
let file: string;
let run = 0;

beforeAll(async () => {
  fakes = await startFakePlanProviders({ now: () => clockMs, accessTokenTtlSec: 3600 });
  dir = await mkdtemp(join(tmpdir(), "planfirst-codex-"));
});
afterAll(async () => {
  await fakes.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  run += 1;
  file = join(dir, `codex-${run}.db`);
  persistence = createSqliteCredentialPersistence(file);
  return () => persistence.close();
});

const call: ConnectorCall = { model: "gpt-5-codex", stream: true };

function spec(
  refreshToken: string,
  extra: Partial<ConnectorSpec["credential"] & object> = {},
): ConnectorSpec {
  return {
    id: "chatgpt-pro",
    provider: "codex",
    authType: "oauth",
    protocol: "openai-responses",
    baseUrl: fakes.codex.baseUrl,
    credential: {
      refreshToken,
      accountId: fakes.codex.accountId,
      tokenUrl: fakes.codex.tokenUrl,
      clientId: fakes.codex.clientId,
      ...extra,
    },
  };
}

/** The body rules of the last connector made here (every Codex connector has the same). */
let bodyRules: BodyRules | undefined;

function connector(s: ConnectorSpec): UpstreamConnector {
  const made = createCodexConnector(s, { persistence, now: () => clockMs });
  bodyRules = made.bodyRules;
  return made;
}

/**
 * Posts a client's Responses body (no `store`, no `instructions`, as the OpenAI SDK sends it) to
 * the fake backend, which refuses that, after the connector's body rules: what the gateway's legs
 * do to every body for this connector.
 */
async function send(prepared: PreparedRequest) {
  const body = { model: "gpt-5-codex", input: "hi", stream: true };
  if (bodyRules) applyBodyRules(body, bodyRules, []);
  return fetch(prepared.url, {
    method: "POST",
    headers: prepared.headers,
    body: JSON.stringify(body),
  });
}

describe("codex connector", () => {
  it("prepares {baseUrl}/responses with Bearer, chatgpt-account-id and planfirst's own user agent", async () => {
    const login = fakes.codex.issueLogin();
    const c = connector(spec(login.refreshToken, { accessToken: login.accessToken }));
    expect(c.protocol).toBe("openai-responses");
    const prepared = await c.prepare(call);
    expect(prepared.url).toBe(`${fakes.codex.baseUrl}/responses`);
    expect(prepared.headers).toMatchObject({
      authorization: `Bearer ${login.accessToken}`,
      "chatgpt-account-id": fakes.codex.accountId,
      "user-agent": expect.stringMatching(/^planfirst/),
      accept: "text/event-stream",
    });
    expect(prepared.headers.originator).toBeUndefined();
    // The token is valid: the next prepare is synchronous (no promise on the hot path).
    expect(c.prepare(call)).not.toBeInstanceOf(Promise);
    const response = await send(prepared);
    expect(response.status).toBe(200);
    // The backend's credits headers say the account has none: evidence off (ladder.md E2).
    const read = c.readResponse({
      status: response.status,
      headers: Object.fromEntries(response.headers),
      observedAtMs: clockMs,
    });
    expect(read.evidence).toMatchObject({ evidence: "off", source: "codex-header" });
    await response.text();
    expect(fakes.codex.refreshes).toBe(0);
  });

  it("forwards the Codex CLI's own originator and user agent when it sent them", () => {
    const c = createCodexConnector(
      { ...spec("rt"), credential: "static-access-token" },
      { persistence, now: () => clockMs },
    );
    expect(() =>
      c.prepare({
        ...call,
        clientHeaders: { originator: "codex_cli_rs", "user-agent": "codex_cli_rs/0.80.0" },
      }),
    ).toThrow(/account id/);
    const withAccount = createCodexConnector(
      { ...spec("rt"), credential: { accessToken: "static-access-token", accountId: "acct-1" } },
      { persistence, now: () => clockMs },
    );
    return Promise.resolve(
      withAccount.prepare({
        ...call,
        clientHeaders: { originator: "codex_cli_rs", "user-agent": "codex_cli_rs/0.80.0" },
      }),
    ).then((prepared) => {
      expect(prepared.headers.originator).toBe("codex_cli_rs");
      expect(prepared.headers["user-agent"]).toBe("codex_cli_rs/0.80.0");
    });
  });

  it("refreshes before expiry against the token endpoint and persists the rotated refresh token", async () => {
    const login = fakes.codex.issueLogin();
    const c = connector(spec(login.refreshToken, { accessToken: login.accessToken }));
    expect((await c.prepare(call)).headers.authorization).toBe(`Bearer ${login.accessToken}`);
    clockMs += 3600_000 - 30_000; // inside the 60 s skew
    const before = fakes.codex.refreshes;
    const prepared = await c.prepare(call);
    expect(fakes.codex.refreshes).toBe(before + 1);
    expect(prepared.headers.authorization).not.toBe(`Bearer ${login.accessToken}`);
    expect((await send(prepared)).status).toBe(200);
    const stored = await persistence.read("connection:chatgpt-pro");
    expect(stored?.refreshToken).not.toBe(login.refreshToken);
    expect(stored?.expiresAtMs).toBe(clockMs + 3600_000);
  });

  it("on a 401 refreshes once and the retry succeeds; concurrent callers share the refresh", async () => {
    const login = fakes.codex.issueLogin();
    const c = connector(spec(login.refreshToken, { accessToken: login.accessToken }));
    const first = await c.prepare(call);
    fakes.codex.expireAccessTokens();
    fakes.codex.refreshDelayMs = 20;
    const refused = await send(first);
    expect(refused.status).toBe(401);
    await refused.text();
    const before = fakes.codex.tokenRequests;
    c.invalidateCredential(first.headers.authorization!.slice("Bearer ".length));
    const retries = await Promise.all(Array.from({ length: 5 }, () => c.prepare(call)));
    fakes.codex.refreshDelayMs = 0;
    expect(fakes.codex.tokenRequests).toBe(before + 1);
    expect(new Set(retries.map((r) => r.headers.authorization)).size).toBe(1);
    const ok = await send(retries[0]!);
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it("a new connector on the same SQLite file needs no new login", async () => {
    const login = fakes.codex.issueLogin();
    await connector(spec(login.refreshToken)).prepare(call);
    persistence.close();
    persistence = createSqliteCredentialPersistence(file);
    const before = fakes.codex.tokenRequests;
    // The configured refresh token has been rotated away; the stored one is used.
    const again = await connector(spec(login.refreshToken)).prepare(call);
    expect(fakes.codex.tokenRequests).toBe(before);
    expect((await send(again)).status).toBe(200);
  });

  it("a refused refresh names the connection and never the token", async () => {
    const login = fakes.codex.issueLogin();
    fakes.codex.failRefreshes(true);
    const error = await Promise.resolve(connector(spec(login.refreshToken)).prepare(call)).catch(
      (e: unknown) => e,
    );
    fakes.codex.failRefreshes(false);
    expect(ConnectorError.isInstance(error)).toBe(true);
    const text = JSON.stringify(error, Object.getOwnPropertyNames(error));
    expect(text).toContain("chatgpt-pro");
    expect(text).toContain("invalid_grant");
    expect(text).not.toContain(login.refreshToken);
    expect((error as ConnectorError).upstreamStatus).toBe(400);
  });

  it("polls wham/usage and reads credits as overage evidence", async () => {
    const login = fakes.codex.issueLogin();
    const c = connector(spec(login.refreshToken, { accessToken: login.accessToken }));
    fakes.codex.hasCredits = true;
    const request = (await c.usageRequest())!;
    expect(request.url).toBe(fakes.codex.usageUrl);
    const response = await fetch(request.url, { headers: request.headers });
    const reading = c.readUsage(await response.json(), clockMs);
    fakes.codex.hasCredits = false;
    expect(reading.windows.map((w) => w.windowId).sort()).toEqual(["5h", "7d"]);
    expect(reading.evidence).toMatchObject({ evidence: "on", source: "codex-usage" });
  });

  it("classifies 429 usage_limit_reached as window exhaustion until resets_at", async () => {
    const login = fakes.codex.issueLogin();
    const c = connector(spec(login.refreshToken, { accessToken: login.accessToken }));
    const resetsAt = Math.floor(clockMs / 1000) + 7200;
    fakes.codex.exhaustedUntilSec = resetsAt;
    const response = await send(await c.prepare(call));
    fakes.codex.exhaustedUntilSec = null;
    const read = c.readResponse({
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
      observedAtMs: clockMs,
    });
    expect(read.failure).toMatchObject({
      kind: "window_exhausted",
      code: "usage_limit_reached",
      resetAt: new Date(resetsAt * 1000).toISOString(),
    });
    expect(read.evidence?.evidence).toBe("off");
    expect(
      c.readResponse({
        status: 429,
        headers: {},
        body: { error: { type: "usage_not_included" } },
        observedAtMs: clockMs,
      }).failure,
    ).toMatchObject({ kind: "misconfigured" });
  });

  it("derives the usage URL from the base URL's path style", () => {
    expect(codexUsageUrl("https://chatgpt.com/backend-api/codex")).toBe(
      "https://chatgpt.com/backend-api/wham/usage",
    );
    expect(codexUsageUrl("https://mirror.example/codex")).toBe(
      "https://mirror.example/codex/api/codex/usage",
    );
  });
});
