import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakePlanProviders, startFakePlanProviders } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PreparedRequest } from "../connector";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { createSqliteCredentialPersistence } from "../sqlite-credential-persistence";
import { createKimiConnector } from "./kimi-connector";
import { parseKimiUsage } from "./kimi-usage";

let clockMs = Date.UTC(2026, 11, 1, 9, 0, 0);
let fakes: FakePlanProviders;
let dir: string;
beforeAll(async () => {
  fakes = await startFakePlanProviders({ now: () => clockMs, accessTokenTtlSec: 900 });
  dir = await mkdtemp(join(tmpdir(), "planfirst-kimi-"));
});
afterAll(async () => {
  await fakes.close();
  await rm(dir, { recursive: true, force: true });
});

// Kimi For Coding serves coding agents only: the call comes from the Kimi CLI, whose
// User-Agent the connector forwards.
const call = {
  model: "kimi-for-coding",
  stream: false,
  clientHeaders: { "user-agent": "KimiCLI/1.30.0" },
};

function spec(refreshToken: string): ConnectorSpec {
  return {
    id: "kimi-code",
    provider: "kimi",
    authType: "oauth",
    baseUrl: fakes.kimi.baseUrl,
    credential: { refreshToken, tokenUrl: fakes.kimi.tokenUrl, clientId: fakes.kimi.clientId },
  };
}

function send(prepared: PreparedRequest) {
  return fetch(prepared.url, {
    method: "POST",
    headers: prepared.headers,
    body: JSON.stringify({ model: "kimi-for-coding", messages: [] }),
  });
}

describe("kimi usage", () => {
  it("reads the weekly usage and the 300-minute window from string numbers", () => {
    const payload = JSON.parse(
      readFileSync(new URL("./__fixtures__/usages.json", import.meta.url), "utf8"),
    );
    expect(parseKimiUsage(payload, clockMs)).toEqual([
      expect.objectContaining({
        windowId: "7d",
        remainingPercent: 74,
        resetAt: "2026-02-11T16:00:00.000Z",
      }),
      expect.objectContaining({ windowId: "5h", remainingPercent: 100, windowSeconds: 18_000 }),
    ]);
    expect(parseKimiUsage({ usage: { limit: "0" } }, clockMs)).toEqual([]);
    expect(parseKimiUsage("nonsense", clockMs)).toEqual([]);
  });
});

describe("kimi connector", () => {
  it("rotates the refresh token on every refresh and keeps only the newest in the SQLite file", async () => {
    const file = join(dir, "rotation.db");
    const persistence = createSqliteCredentialPersistence(file);
    const login = fakes.kimi.issueLogin();
    const c = createKimiConnector(spec(login.refreshToken), { persistence, now: () => clockMs });
    const first = await c.prepare(call);
    expect(first.url).toBe(`${fakes.kimi.baseUrl}/chat/completions`);
    expect((await send(first)).status).toBe(200);
    const afterFirst = (await persistence.read("connection:kimi-code"))!.refreshToken;
    expect(afterFirst).not.toBe(login.refreshToken);

    clockMs += 900_000 - 10_000; // within the skew of the 15 min token
    const second = await c.prepare(call);
    expect((await send(second)).status).toBe(200);
    const afterSecond = (await persistence.read("connection:kimi-code"))!.refreshToken;
    expect(afterSecond).not.toBe(afterFirst);
    persistence.close();

    // After a restart the stored (rotated) token is used: the configured one is long dead.
    const reopened = createSqliteCredentialPersistence(file);
    const restarted = createKimiConnector(spec(login.refreshToken), {
      persistence: reopened,
      now: () => clockMs,
    });
    fakes.kimi.expireAccessTokens();
    const before = fakes.kimi.tokenRequests;
    await restarted.prepare(call); // loads, then the token is still valid by its expiry…
    restarted.invalidateCredential(); // …but the server refused it: one refresh with the stored token
    const retried = await restarted.prepare(call);
    expect(fakes.kimi.tokenRequests).toBe(before + 1);
    expect((await send(retried)).status).toBe(200);
    reopened.close();
  });

  it("a refused refresh names the connection, not the token", async () => {
    const persistence = createSqliteCredentialPersistence(join(dir, "refused.db"));
    const c = createKimiConnector(spec("kimi-rt-not-issued-by-the-server"), {
      persistence,
      now: () => clockMs,
    });
    const error = await Promise.resolve(c.prepare(call)).catch((e: unknown) => e);
    expect(ConnectorError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/kimi-code.*400 \(invalid_grant\)/);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(
      "kimi-rt-not-issued",
    );
    persistence.close();
  });

  it("polls /usages with the access token", async () => {
    const persistence = createSqliteCredentialPersistence(join(dir, "usage.db"));
    const c = createKimiConnector(spec(fakes.kimi.issueLogin().refreshToken), {
      persistence,
      now: () => clockMs,
    });
    const request = await c.usageRequest();
    expect(request!.url).toBe(fakes.kimi.usageUrl);
    const { windows } = c.readUsage(
      await (await fetch(request!.url, { headers: request!.headers })).json(),
      clockMs,
    );
    expect(windows.map((w) => [w.windowId, w.remainingPercent])).toEqual([
      ["7d", 75],
      ["5h", 90],
    ]);
    persistence.close();
  });

  it("reads the fake's refusal of a client that is not a coding agent as client_refused, not the key's", async () => {
    const persistence = createSqliteCredentialPersistence(":memory:");
    const c = createKimiConnector(
      { ...spec(fakes.kimi.issueLogin().refreshToken), id: "kimi-agents" },
      { persistence, now: () => clockMs },
    );
    const prepared = await c.prepare({ model: "kimi-for-coding", stream: false });
    // No client User-Agent: the connector sends planfirst's own, which Kimi does not admit.
    expect(prepared.headers["user-agent"]).toMatch(/^planfirst\//);
    const response = await send(prepared);
    expect(response.status).toBe(403);
    const read = c.readResponse({
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.json(),
      observedAtMs: clockMs,
    });
    expect(read.failure).toMatchObject({ kind: "client_refused", code: "access_terminated_error" });
    // Any other 403 is still the key's problem.
    const other = c.readResponse({
      status: 403,
      headers: {},
      body: { error: { message: "forbidden", type: "permission_error" } },
      observedAtMs: clockMs,
    });
    expect(other.failure?.kind).toBe("auth_invalid");
    persistence.close();
  });

  it("takes a console API key as a static credential, synchronously", () => {
    const persistence = createSqliteCredentialPersistence(":memory:");
    const c = createKimiConnector(
      { id: "kimi-key", provider: "kimi", authType: "apikey", credential: "sk-kimi-console" },
      { persistence, now: () => clockMs },
    );
    expect(c.prepare(call)).toMatchObject({
      url: "https://api.kimi.com/coding/v1/chat/completions",
      headers: { authorization: "Bearer sk-kimi-console" },
    });
    persistence.close();
  });
});

describe("kimi connector on the Anthropic endpoint", () => {
  it("sends a console key as x-api-key to {base}/v1/messages and polls the coding usages", async () => {
    const persistence = createSqliteCredentialPersistence(":memory:");
    const c = createKimiConnector(
      {
        id: "kimi-coding",
        provider: "kimi",
        authType: "apikey",
        protocol: "anthropic-messages",
        baseUrl: "https://api.kimi.com/coding",
        credential: "sk-kimi-console",
      },
      { persistence, now: () => clockMs },
    );
    expect(c.protocol).toBe("anthropic-messages");
    expect(
      c.prepare({ ...call, clientHeaders: { "anthropic-beta": "context-1m-2025-08-07" } }),
    ).toMatchObject({
      url: "https://api.kimi.com/coding/v1/messages",
      headers: {
        "x-api-key": "sk-kimi-console",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "context-1m-2025-08-07",
      },
    });
    expect(await c.usageRequest()).toMatchObject({ url: "https://api.kimi.com/coding/v1/usages" });
    persistence.close();
  });
});
