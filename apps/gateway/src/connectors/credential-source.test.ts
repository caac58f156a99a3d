import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectorError } from "./connector-error";
import type { StoredCredential } from "./credential-persistence";
import { createRefreshableCredential, createStaticCredential } from "./credential-source";
import { createSqliteCredentialPersistence } from "./sqlite-credential-persistence";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "planfirst-credential-source-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A token server in miniature: each refresh rotates both tokens and counts itself. */
function rotatingRefresher(clock: { ms: number }, prefix = "", ttlMs = 600_000) {
  let refreshes = 0;
  return {
    get refreshes() {
      return refreshes;
    },
    refresh: async (current: StoredCredential): Promise<StoredCredential> => {
      refreshes += 1;
      const n = refreshes;
      // Answer on a later turn, as a real token endpoint does, so concurrent callers overlap.
      await new Promise((resolve) => setImmediate(resolve));
      return {
        ...current,
        accessToken: `${prefix}access-${n}`,
        refreshToken: `${prefix}refresh-${n}`,
        expiresAtMs: clock.ms + ttlMs,
        updatedAtMs: clock.ms,
      };
    },
  };
}

describe("createRefreshableCredential", () => {
  it("uses a valid seed synchronously and refreshes within the skew before expiry", async () => {
    const clock = { ms: 1_000_000 };
    const refresher = rotatingRefresher(clock);
    const persistence = createSqliteCredentialPersistence(join(dir, "skew.db"));
    const source = createRefreshableCredential({
      connectionId: "c1",
      provider: "codex",
      key: "connection:c1",
      persistence,
      refresh: refresher.refresh,
      now: () => clock.ms,
      skewMs: 30_000,
      seed: {
        accessToken: "seed-access",
        refreshToken: "seed-refresh",
        expiresAtMs: clock.ms + 100_000,
      },
    });
    expect(source.peek()).toBeNull();
    expect(await source.get()).toBe("seed-access");
    expect(source.peek()).toBe("seed-access");
    clock.ms += 69_000;
    expect(source.peek()).toBe("seed-access");
    clock.ms += 2_000;
    expect(source.peek()).toBeNull();
    expect(await source.get()).toBe("access-1");
    expect(refresher.refreshes).toBe(1);
    persistence.close();
  });

  it("shares one refresh between concurrent callers and refreshes once for concurrent 401s", async () => {
    const clock = { ms: 1_000_000 };
    const refresher = rotatingRefresher(clock);
    const persistence = createSqliteCredentialPersistence(join(dir, "flight.db"));
    const source = createRefreshableCredential({
      connectionId: "c2",
      provider: "kimi",
      key: "connection:c2",
      persistence,
      refresh: refresher.refresh,
      now: () => clock.ms,
      seed: { refreshToken: "seed-refresh" },
    });
    const tokens = await Promise.all(Array.from({ length: 8 }, () => source.get()));
    expect(new Set(tokens)).toEqual(new Set(["access-1"]));
    expect(refresher.refreshes).toBe(1);
    source.invalidate("access-1");
    source.invalidate("access-1");
    const again = await Promise.all([source.get(), source.get()]);
    expect(again).toEqual(["access-2", "access-2"]);
    source.invalidate("access-1");
    expect(source.peek()).toBe("access-2");
    expect(refresher.refreshes).toBe(2);
    persistence.close();
  });

  it("a new source on the same SQLite file needs no refresh, and adopts a token another replica refreshed", async () => {
    const clock = { ms: 5_000_000 };
    const file = join(dir, "survive.db");
    const options = {
      connectionId: "c3",
      provider: "codex",
      key: "login:codex",
      now: () => clock.ms,
      seed: { refreshToken: "seed-refresh" },
    };
    const refresherA = rotatingRefresher(clock, "a-");
    const first = createSqliteCredentialPersistence(file);
    const a = createRefreshableCredential({
      ...options,
      persistence: first,
      refresh: refresherA.refresh,
    });
    expect(await a.get()).toBe("a-access-1");
    first.close();

    // A restart: a new source on the same file uses the stored token, no new login, no refresh.
    const refresherB = rotatingRefresher(clock, "b-");
    const second = createSqliteCredentialPersistence(file);
    const b = createRefreshableCredential({
      ...options,
      persistence: second,
      refresh: refresherB.refresh,
    });
    expect(await b.get()).toBe("a-access-1");
    expect(refresherB.refreshes).toBe(0);

    // Two replicas: both see a 401; b refreshes first, a adopts b's token instead of rotating again.
    const third = createSqliteCredentialPersistence(file);
    const a2 = createRefreshableCredential({
      ...options,
      persistence: third,
      refresh: refresherA.refresh,
    });
    expect(await a2.get()).toBe("a-access-1");
    b.invalidate("a-access-1");
    a2.invalidate("a-access-1");
    expect(await b.get()).toBe("b-access-1");
    expect(await a2.get()).toBe("b-access-1");
    expect(refresherA.refreshes).toBe(1);
    expect((await third.read("login:codex"))?.refreshToken).toBe("b-refresh-1");
    second.close();
    third.close();
  });

  it("reports a failed refresh naming the connection, never the token", async () => {
    const persistence = createSqliteCredentialPersistence(join(dir, "fail.db"));
    const source = createRefreshableCredential({
      connectionId: "chatgpt-pro",
      provider: "codex",
      key: "connection:chatgpt-pro",
      persistence,
      now: () => 0,
      seed: { refreshToken: "rt-super-secret-value" },
      refresh: async () => {
        throw new Error("upstream said rt-super-secret-value is bad");
      },
    });
    const error = await source.get().catch((e: unknown) => e);
    expect(ConnectorError.isInstance(error)).toBe(true);
    expect((error as ConnectorError).code).toBe("credential_refresh_failed");
    expect((error as ConnectorError).message).toContain("chatgpt-pro");
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(
      "rt-super-secret",
    );
    expect((error as Error).cause).toBeUndefined();
    persistence.close();
  });

  it("keeps a remembered field in the store, also through a refresh that began before it", async () => {
    const clock = { ms: 1_000_000 };
    const persistence = createSqliteCredentialPersistence(join(dir, "fields.db"));
    let answer: (() => void) | undefined;
    const source = createRefreshableCredential({
      connectionId: "c5",
      provider: "gemini-code-assist",
      key: "connection:c5",
      persistence,
      now: () => clock.ms,
      seed: { accessToken: "seed-access", refreshToken: "seed-refresh", expiresAtMs: clock.ms + 1 },
      // The token endpoint answers only when the test says so.
      refresh: async (current) => {
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        return { ...current, accessToken: "access-1", expiresAtMs: clock.ms + 600_000 };
      },
    });
    const refreshed = source.get();
    await new Promise((resolve) => setImmediate(resolve));
    const remembered = source.rememberField("project", "managed-project-1");
    answer?.();
    expect(await refreshed).toBe("access-1");
    await remembered;
    expect(source.field("project")).toBe("managed-project-1");
    const stored = await persistence.read("connection:c5");
    expect(stored).toMatchObject({
      accessToken: "access-1",
      fields: { project: "managed-project-1" },
    });
    persistence.close();
  });

  it("without a stored login or seed it says which login is missing", async () => {
    const persistence = createSqliteCredentialPersistence(join(dir, "missing.db"));
    const source = createRefreshableCredential({
      connectionId: "c4",
      provider: "codex",
      key: "login:work",
      persistence,
      now: () => 0,
      refresh: async (c) => c,
    });
    await expect(source.get()).rejects.toThrow(/c4.*login:work/);
    persistence.close();
  });
});

describe("createStaticCredential", () => {
  it("is always at hand and ignores invalidation", async () => {
    const source = createStaticCredential("sk-static", { accountId: "a" });
    source.invalidate("sk-static");
    expect(source.peek()).toBe("sk-static");
    expect(await source.get()).toBe("sk-static");
    expect(source.field("accountId")).toBe("a");
  });
});
