import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock, deleteRedisKeys, REDIS_URL, waitFor } from "../../test/harness";
import { redisRelay } from "../../test/sessions";
import { GatewayError } from "../errors";
import type { ClientIdentity, ClientKeyLimits } from "../routing/client-identity";
import type { KeyLimiter } from "./key-limits";
import { createRedisKeyLimiter, LEASE_MS, type RedisKeyLimiterOptions } from "./key-limits-redis";

// Two limiters on one key prefix and one clock are two replicas of one gateway: every test
// checks what one sees of the other's requests, on the real Redis.

const prefixes: string[] = [];
const open: KeyLimiter[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((limiter) => limiter.close()));
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisKeys(prefix);
});

const key = (id: string, limits: Partial<ClientKeyLimits>) => ({
  client: { id, connections: null } as ClientIdentity,
  limits: { maxConcurrent: null, requestsPerMinute: null, ...limits } as ClientKeyLimits,
});

function replicas(count: number, options: Partial<RedisKeyLimiterOptions> = {}) {
  const keyPrefix = `planfirst-test:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  const clock = createClock();
  const logs: string[] = [];
  const logger = {
    warn: (_: object, msg: string) => logs.push(`warn ${msg}`),
    info: (_: object, msg: string) => logs.push(`info ${msg}`),
  };
  const limiters = Array.from({ length: count }, () => {
    const limiter = createRedisKeyLimiter({
      url: REDIS_URL,
      keyPrefix,
      now: clock.now,
      logger,
      ...options,
    });
    open.push(limiter);
    return limiter;
  });
  return { limiters, clock, logs, keyPrefix };
}

/** The refusal `admit` rejected with, or a failure when it admitted. */
async function refusal(admitted: Promise<unknown>): Promise<GatewayError> {
  const error = await admitted.then(
    () => expect.fail("admitted over the limit"),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe("key_rate_limited");
  return error as GatewayError;
}

describe("client key limits shared by replicas on Redis", () => {
  it("requestsPerMinute counts every replica's starts in one sliding 60 s, another key apart", async () => {
    const { limiters, clock } = replicas(2);
    const [a, b] = limiters as [KeyLimiter, KeyLimiter];
    const alice = key("alice", { requestsPerMinute: 3 });
    await a.admit(alice.client, alice.limits);
    clock.advance(20_000);
    await b.admit(alice.client, alice.limits);
    await a.admit(alice.client, alice.limits);

    for (const replica of [a, b]) {
      const refused = await refusal(replica.admit(alice.client, alice.limits));
      expect(refused.retryAfterSec).toBe(40);
      expect(refused.message).toContain('client key "alice" started 3 requests');
    }
    const bob = key("bob", { requestsPerMinute: 1 });
    await b.admit(bob.client, bob.limits);

    clock.advance(39_000);
    expect((await refusal(b.admit(alice.client, alice.limits))).retryAfterSec).toBe(1);
    clock.advance(1_000);
    await b.admit(alice.client, alice.limits);
    // The first start has left the last 60 s; the two at +20 s have not.
    await refusal(a.admit(alice.client, alice.limits));
  });

  it("maxConcurrent counts every replica's requests in flight; a slot given back twice frees one", async () => {
    const { limiters } = replicas(2);
    const [a, b] = limiters as [KeyLimiter, KeyLimiter];
    const carol = key("carol", { maxConcurrent: 2 });
    const first = await a.admit(carol.client, carol.limits);
    const second = await b.admit(carol.client, carol.limits);
    const refused = await refusal(a.admit(carol.client, carol.limits));
    expect(refused.retryAfterSec).toBe(1);
    expect(refused.message).toContain('client key "carol" has 2 requests in flight');

    second();
    second();
    const third = await a.admit(carol.client, carol.limits);
    await refusal(b.admit(carol.client, carol.limits));
    first();
    third();
    await a.admit(carol.client, carol.limits);
    await b.admit(carol.client, carol.limits);
  });

  it("a replica that dies holding a slot holds it until its lease lapses; a live one renews it", async () => {
    const { limiters, clock, keyPrefix } = replicas(3, { renewEveryMs: 20 });
    const [living, dying, other] = limiters as [KeyLimiter, KeyLimiter, KeyLimiter];
    const dave = key("dave", { maxConcurrent: 2 });
    await living.admit(dave.client, dave.limits);
    await dying.admit(dave.client, dave.limits);
    await dying.close();
    await refusal(other.admit(dave.client, dave.limits));

    // Past the dead replica's lease, but the living one has renewed its own meanwhile.
    clock.advance(LEASE_MS - 1_000);
    const redis = new Redis(REDIS_URL);
    try {
      const slots = `{${keyPrefix}key-limits:dave}:slots`;
      await waitFor(
        async () => {
          const [, score] = await redis.zrange(slots, -1, -1, "WITHSCORES");
          return Number(score) >= clock.now() + LEASE_MS;
        },
        { what: "the living replica to renew its slot" },
      );
    } finally {
      await redis.quit();
    }
    clock.advance(2_000);
    const taken = await other.admit(dave.client, dave.limits);
    await refusal(other.admit(dave.client, dave.limits));
    taken();
  });

  it("when Redis stops answering, each replica counts its own requests and says so once; when it answers again, the count is shared again", async () => {
    const relay = await redisRelay();
    const { limiters, logs } = replicas(2, { url: relay.url });
    const [a, b] = limiters as [KeyLimiter, KeyLimiter];
    const erin = key("erin", { requestsPerMinute: 1 });
    await a.admit(erin.client, erin.limits);
    await refusal(b.admit(erin.client, erin.limits));

    await relay.cut();
    await a.admit(erin.client, erin.limits);
    await b.admit(erin.client, erin.limits);
    await refusal(b.admit(erin.client, erin.limits));
    expect(logs.filter((line) => line.startsWith("warn"))).toHaveLength(2);
    expect(logs.join("\n")).toContain("each replica counts its own requests");

    await relay.restore();
    const polling = key("polling", { requestsPerMinute: 1_000 });
    await waitFor(
      async () => {
        await Promise.all([
          a.admit(polling.client, polling.limits),
          b.admit(polling.client, polling.limits),
        ]);
        return logs.filter((line) => line.startsWith("info")).length === 2;
      },
      { timeoutMs: 15_000, what: "both replicas to reach Redis again" },
    );
    expect(logs.join("\n")).toContain("Redis answers again, limits are shared");
    const gina = key("gina", { requestsPerMinute: 1 });
    await a.admit(gina.client, gina.limits);
    await refusal(b.admit(gina.client, gina.limits));
  });

  it("what a replica admitted alone during an outage counts for every replica once Redis answers again", async () => {
    const relay = await redisRelay();
    const { limiters, logs, clock } = replicas(2, { url: relay.url });
    const [a, b] = limiters as [KeyLimiter, KeyLimiter];
    const hana = key("hana", { requestsPerMinute: 2 });
    const ivan = key("ivan", { maxConcurrent: 1 });
    const polling = key("polling", { requestsPerMinute: 1_000 });
    // Both replicas reach Redis before it goes away.
    await a.admit(polling.client, polling.limits);
    await b.admit(polling.client, polling.limits);

    await relay.cut();
    await a.admit(hana.client, hana.limits);
    clock.advance(1_000);
    await a.admit(hana.client, hana.limits);
    const ivanInFlight = await a.admit(ivan.client, ivan.limits);

    await relay.restore();
    await waitFor(
      async () => {
        await a.admit(polling.client, polling.limits);
        return logs.some((line) => line.startsWith("info"));
      },
      { timeoutMs: 15_000, what: "replica a to reach Redis again" },
    );
    // Replica b never saw those requests: it learns them from Redis.
    const refusedRate = await refusal(b.admit(hana.client, hana.limits));
    expect(refusedRate.retryAfterSec).toBe(59);
    await refusal(b.admit(ivan.client, ivan.limits));

    // The request in flight gives its slot back in Redis too; the starts leave with their minute.
    ivanInFlight();
    await waitFor(
      async () =>
        b.admit(ivan.client, ivan.limits).then(
          (giveBack) => {
            giveBack();
            return true;
          },
          () => false,
        ),
      { what: "the slot taken during the outage to be given back in Redis" },
    );
    clock.advance(59_000);
    await b.admit(hana.client, hana.limits);
  });
});
