import { randomUUID } from "node:crypto";
import { type FakePlanProviders, startFakePlanProviders } from "@planfirst/fake-upstream";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PreparedRequest } from "./connector";
import type { ConnectorSpec } from "./connector-spec";
import type { StoredCredential } from "./credential-persistence";
import { createKimiConnector } from "./kimi/kimi-connector";
import { createRedisCredentialPersistence } from "./redis-credential-persistence";

// The real Redis (REDIS_URL, default 127.0.0.1:6379), a random key prefix per test.
const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
let admin: Redis;
let fakes: FakePlanProviders;
let clockMs = Date.UTC(2026, 11, 1, 9, 0, 0);
const prefixes: string[] = [];

beforeAll(async () => {
  admin = new Redis(url);
  fakes = await startFakePlanProviders({ now: () => clockMs, accessTokenTtlSec: 900 });
});
afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
  }
  admin.disconnect();
  await fakes.close();
});

function prefix(): string {
  const value = `planfirst-test-${randomUUID()}:`;
  prefixes.push(value);
  return value;
}

const stored: StoredCredential = {
  provider: "kimi",
  accessToken: "access-0001-value",
  expiresAtMs: 1_800_000_000_000,
  refreshToken: "refresh-0001-value",
  fields: { accountId: "acct-1" },
  updatedAtMs: 1_700_000_000_000,
};

describe("Redis credential persistence", () => {
  it("reads back what it wrote, lists keys sorted, and keeps deployments apart by prefix", async () => {
    const keyPrefix = prefix();
    const one = createRedisCredentialPersistence({ url, keyPrefix });
    const other = createRedisCredentialPersistence({ url, keyPrefix: prefix() });
    try {
      expect(await one.read("login:kimi")).toBeNull();
      await one.write("login:kimi", stored);
      await one.write("connection:a", { ...stored, provider: "codex" });
      expect(await one.read("login:kimi")).toEqual(stored);
      expect(await one.keys()).toEqual(["connection:a", "login:kimi"]);
      expect(await other.read("login:kimi")).toBeNull();
      expect(await other.keys()).toEqual([]);
      // One hash under the prefix, nothing else.
      expect(await admin.keys(`${keyPrefix}*`)).toEqual([`${keyPrefix}credentials`]);
    } finally {
      await one.close();
      await other.close();
    }
  });

  it("treats an unreadable stored value as absent and refuses to write an invalid one", async () => {
    const keyPrefix = prefix();
    const persistence = createRedisCredentialPersistence({ url, keyPrefix });
    try {
      await admin.hset(`${keyPrefix}credentials`, "login:bad", "{not json");
      await admin.hset(`${keyPrefix}credentials`, "login:shape", JSON.stringify({ provider: 1 }));
      expect(await persistence.read("login:bad")).toBeNull();
      expect(await persistence.read("login:shape")).toBeNull();
      await expect(
        persistence.write("login:x", { ...stored, accessToken: "" } as StoredCredential),
      ).rejects.toThrow();
    } finally {
      await persistence.close();
    }
  });

  it("two replicas share one rotated refresh token: the second adopts the first's refresh instead of spending the used one", async () => {
    const keyPrefix = prefix();
    const login = fakes.kimi.issueLogin();
    const spec: ConnectorSpec = {
      id: "kimi-code",
      provider: "kimi",
      authType: "oauth",
      baseUrl: fakes.kimi.baseUrl,
      credential: {
        login: "kimi",
        refreshToken: login.refreshToken,
        tokenUrl: fakes.kimi.tokenUrl,
        clientId: fakes.kimi.clientId,
      },
    };
    const persistenceA = createRedisCredentialPersistence({ url, keyPrefix });
    const persistenceB = createRedisCredentialPersistence({ url, keyPrefix });
    const now = () => clockMs;
    const replicaA = createKimiConnector(spec, { persistence: persistenceA, now });
    const replicaB = createKimiConnector(spec, { persistence: persistenceB, now });
    const send = (prepared: PreparedRequest) =>
      fetch(prepared.url, {
        method: "POST",
        headers: prepared.headers,
        body: JSON.stringify({ model: "kimi-for-coding", messages: [] }),
      });
    // From the Kimi CLI: Kimi For Coding serves coding agents only.
    const call = {
      model: "kimi-for-coding",
      stream: false,
      clientHeaders: { "user-agent": "KimiCLI/1.30.0" },
    };
    try {
      const refreshes = fakes.kimi.refreshes;
      // Replica A refreshes first (the seed has no access token): the refresh token rotates.
      expect((await send(await replicaA.prepare(call))).status).toBe(200);
      expect(fakes.kimi.refreshes).toBe(refreshes + 1);
      // Replica B loads the stored login rather than its stale seed: no refresh, and it works.
      expect((await send(await replicaB.prepare(call))).status).toBe(200);
      expect(fakes.kimi.refreshes).toBe(refreshes + 1);

      // The token expires; B refreshes with the rotated token (the seed's would be invalid_grant),
      // and A, refused once, adopts B's token from Redis without a refresh of its own.
      clockMs += 20 * 60_000;
      expect((await send(await replicaB.prepare(call))).status).toBe(200);
      expect(fakes.kimi.refreshes).toBe(refreshes + 2);
      const prepared = await replicaA.prepare(call);
      expect((await send(prepared)).status).toBe(200);
      expect(fakes.kimi.refreshes).toBe(refreshes + 2);
      const raw = await admin.hget(`${keyPrefix}credentials`, "login:kimi");
      expect(raw).not.toContain(login.refreshToken);
    } finally {
      await persistenceA.close();
      await persistenceB.close();
    }
  });
});
