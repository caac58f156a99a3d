import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  credentialLabel,
  type FakePlanProviders,
  startFakePlanProviders,
} from "@planfirst/fake-upstream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ConnectorCall, PreparedRequest } from "../connector";
import { PLANFIRST_USER_AGENT } from "../connector";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import {
  createSqliteCredentialPersistence,
  type SqliteCredentialPersistence,
} from "../sqlite-credential-persistence";
import {
  COPILOT_DEFAULT_INTEGRATION_ID,
  createGithubCopilotConnector,
  nextMonthlyResetIso,
} from "./github-copilot-connector";

let clockMs = Date.UTC(2026, 11, 1, 9, 0, 0);
let fakes: FakePlanProviders;
let dir: string;
let file: string;
let persistence: SqliteCredentialPersistence;
let run = 0;

beforeAll(async () => {
  fakes = await startFakePlanProviders({ now: () => clockMs });
  dir = await mkdtemp(join(tmpdir(), "planfirst-copilot-"));
});
afterAll(async () => {
  await fakes.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  run += 1;
  file = join(dir, `copilot-${run}.db`);
  persistence = createSqliteCredentialPersistence(file);
  return () => persistence.close();
});

const call: ConnectorCall = { model: "gpt-5", stream: false };

function spec(
  overrides: Partial<ConnectorSpec> = {},
  githubToken = fakes.copilot.githubToken,
): ConnectorSpec {
  return {
    id: "copilot",
    provider: "github-copilot",
    authType: "oauth",
    protocol: "openai-chat",
    usageUrl: fakes.copilot.userUrl,
    credential: { githubToken, tokenUrl: fakes.copilot.tokenUrl },
    ...overrides,
  };
}

const connector = (s: ConnectorSpec) =>
  createGithubCopilotConnector(s, { persistence, now: () => clockMs });

function send(prepared: PreparedRequest) {
  return fetch(prepared.url, {
    method: "POST",
    headers: prepared.headers,
    body: JSON.stringify({ model: "gpt-5", messages: [{ role: "user", content: "hi" }] }),
  });
}

describe("github-copilot connector", () => {
  it("exchanges the GitHub token, finds the API base in copilot_internal/user, and sends only the session token", async () => {
    const c = connector(spec());
    const prepared = await c.prepare(call);
    expect(prepared.url).toBe(`${fakes.copilot.apiBaseUrl}/chat/completions`);
    expect(prepared.headers.authorization).toMatch(/^Bearer tid=fake/);
    expect(JSON.stringify(prepared)).not.toContain(fakes.copilot.githubToken);
    expect((await send(prepared)).status).toBe(200);
    // What reached inference: planfirst's own identity and the default integration id, and a
    // session token from the exchange, never the GitHub token.
    const hit = fakes.hits.at(-1)!;
    expect(hit.path).toBe("/copilot/chat/completions");
    expect(PLANFIRST_USER_AGENT).toMatch(/^planfirst\/\d+\.\d+\.\d+/);
    expect(hit.headers).toMatchObject({
      "user-agent": PLANFIRST_USER_AGENT,
      "editor-version": PLANFIRST_USER_AGENT,
      "copilot-integration-id": COPILOT_DEFAULT_INTEGRATION_ID,
    });
    expect(hit.label).toBe(
      credentialLabel(prepared.headers.authorization!.slice("Bearer ".length)),
    );
    expect(hit.label).not.toBe(credentialLabel(fakes.copilot.githubToken));
    expect(c.prepare(call)).not.toBeInstanceOf(Promise);
    const exchange = fakes.hits.find((hit) => hit.path === "/copilot_internal/v2/token");
    expect(exchange?.scheme).toBe("token");
  });

  it("the operator's integration id wins over the default and the client's; a client's own editor headers are forwarded", async () => {
    const operator = connector(spec({ headers: { "Copilot-Integration-Id": "vscode-chat" } }));
    const editor = {
      "user-agent": "GitHubCopilotChat/0.31.2",
      "editor-version": "vscode/1.104.1",
      "editor-plugin-version": "copilot-chat/0.31.2",
      "copilot-integration-id": "copilot-language-server",
    };
    const configured = await operator.prepare({ ...call, clientHeaders: editor });
    expect(configured.headers).toMatchObject({
      "editor-version": "vscode/1.104.1",
      "copilot-integration-id": "vscode-chat",
    });
    expect((await send(configured)).status).toBe(200);

    const forwarded = await connector(spec()).prepare({ ...call, clientHeaders: editor });
    expect(forwarded.headers).toMatchObject(editor);
    expect((await send(forwarded)).status).toBe(200);
    // An integration id GitHub does not know is refused: the connection's misconfiguration.
    const unknown = connector(spec({ headers: { "copilot-integration-id": "planfirst" } }));
    const refused = await send(await unknown.prepare(call));
    expect(refused.status).toBe(400);
    expect(
      unknown.readResponse({
        status: refused.status,
        headers: {},
        body: await refused.text(),
        observedAtMs: clockMs,
      }).failure,
    ).toMatchObject({
      kind: "misconfigured",
      detail: "Copilot refused the request: unknown Copilot-Integration-Id header",
    });
  });

  it("uses a configured baseUrl without asking the user endpoint", async () => {
    const c = connector(spec({ baseUrl: "http://127.0.0.1:9/mirror" }));
    const userHits = fakes.hits.filter((hit) => hit.path === "/copilot_internal/user").length;
    const prepared = await c.prepare(call);
    expect(prepared.url).toBe("http://127.0.0.1:9/mirror/chat/completions");
    expect(fakes.hits.filter((hit) => hit.path === "/copilot_internal/user").length).toBe(userHits);
  });

  it("re-exchanges 5 minutes before expires_at, and once on a 401 for concurrent callers", async () => {
    const c = connector(spec());
    await c.prepare(call);
    const before = fakes.copilot.exchanges;
    clockMs += 1800_000 - 299_000;
    await c.prepare(call);
    expect(fakes.copilot.exchanges).toBe(before + 1);

    const current = await c.prepare(call);
    fakes.copilot.expireSessionTokens();
    expect((await send(current)).status).toBe(401);
    c.invalidateCredential(current.headers.authorization!.slice("Bearer ".length));
    const retries = await Promise.all([c.prepare(call), c.prepare(call), c.prepare(call)]);
    expect(fakes.copilot.exchanges).toBe(before + 2);
    expect((await send(retries[2]!)).status).toBe(200);
  });

  it("keeps the session token in the SQLite file for the next start", async () => {
    await connector(spec()).prepare(call);
    persistence.close();
    persistence = createSqliteCredentialPersistence(file);
    const before = fakes.copilot.exchanges;
    await connector(spec({ baseUrl: fakes.copilot.apiBaseUrl })).prepare(call);
    expect(fakes.copilot.exchanges).toBe(before);
  });

  it("a refused exchange names the connection, never the GitHub token", async () => {
    const error = await Promise.resolve(
      connector(spec({}, "gho_wrongTokenValue123")).prepare(call),
    ).catch((e: unknown) => e);
    expect(ConnectorError.isInstance(error)).toBe(true);
    const text = JSON.stringify(error, Object.getOwnPropertyNames(error));
    expect(text).toContain("connection copilot");
    expect(text).toContain("401");
    expect(text).not.toContain("gho_wrongTokenValue123");
  });

  it("polls quota_snapshots with the GitHub token and reads overage_permitted", async () => {
    const c = connector(spec());
    const request = await c.usageRequest();
    expect(request!.headers.authorization).toBe(`token ${fakes.copilot.githubToken}`);
    const response = await fetch(request!.url, { headers: request!.headers });
    const { windows, evidence } = c.readUsage(await response.json(), clockMs);
    expect(windows.find((w) => w.windowId === "premium_interactions")).toMatchObject({
      remainingPercent: 80,
    });
    expect(evidence).toMatchObject({ evidence: "off", source: "copilot-usage" });
  });

  it("classifies a 402 quota_exceeded as exhaustion until the monthly reset", async () => {
    const c = connector(spec());
    const prepared = await c.prepare(call);
    fakes.copilot.exhausted = true;
    const response = await send(prepared);
    fakes.copilot.exhausted = false;
    const read = c.readResponse({
      status: response.status,
      headers: {},
      body: await response.text(),
      observedAtMs: clockMs,
    });
    expect(read.failure).toMatchObject({
      kind: "window_exhausted",
      code: "quota_exceeded",
      resetAt: nextMonthlyResetIso(clockMs),
    });
    // The plan stopped instead of billing: a hard stop (quota-signals.md §14).
    expect(read.evidence).toMatchObject({ evidence: "off", source: "copilot-quota-exceeded" });
    expect(
      c.readResponse({
        status: 429,
        headers: { "retry-after": "120" },
        body: { error: { code: "user_weekly_rate_limited" } },
        observedAtMs: clockMs,
      }).failure?.kind,
    ).toBe("window_exhausted");
    expect(nextMonthlyResetIso(Date.UTC(2026, 11, 31, 23))).toBe("2027-01-01T00:00:00.000Z");
  });
});
