import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLazyRedis, type LazyRedis } from "./redis-client";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const opened: LazyRedis[] = [];
afterEach(() => {
  for (const redis of opened.splice(0)) redis.client.disconnect();
  vi.restoreAllMocks();
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("createLazyRedis", () => {
  it("connects on first use, once for concurrent callers", async () => {
    const redis = createLazyRedis(REDIS_URL, { maxRetriesPerRequest: 1 });
    opened.push(redis);
    expect(redis.client.status).toBe("wait");
    await Promise.all([redis.connected(), redis.connected()]);
    expect(redis.client.status).toBe("ready");
    expect(await redis.client.ping()).toBe("PONG");
  });

  it("reports an unreachable server through the call that failed, never as an unhandled error event", async () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const redis = createLazyRedis(`redis://127.0.0.1:${await closedPort()}`, {
      maxRetriesPerRequest: 0,
    });
    opened.push(redis);
    await expect(redis.connected()).rejects.toThrow();
    // The next call tries again rather than reusing the failed attempt.
    await expect(redis.connected()).rejects.toThrow();
    expect(printed.mock.calls.flat().join(" ")).not.toContain("Unhandled error event");
  });
});
