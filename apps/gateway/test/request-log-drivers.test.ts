import { existsSync } from "node:fs";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { requestLogPathFor } from "../src/observability/request-log/request-log-sqlite";
import { STANDARD_FAKES, standardConfig } from "./fixtures";
import {
  chatBody,
  createClock,
  deleteRedisKeys,
  messagesBody,
  post,
  REDIS_URL,
  redisStorage,
  useTestBed,
} from "./harness";
import {
  expectNothingSecret,
  INTERN_KEY,
  readRequests,
  SAMPLE_PROMPT,
  TEAM_ENV,
  TEAM_KEY,
  TEAM_SERVER,
  waitForRequests,
} from "./request-log-helpers";

const bed = useTestBed(STANDARD_FAKES);
const prefixes: string[] = [];
const DAY = 86_400_000;

afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => deleteRedisKeys(prefix)));
});

const env = { ...TEAM_ENV, PLAN_TOKEN: "" };
const prompt = { messages: [{ role: "user", content: SAMPLE_PROMPT }] };

describe("the request log on each storage driver", () => {
  it("memory: records are kept in the process and no file is written", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes, { server: TEAM_SERVER }),
      env,
      storage: { driver: "memory" },
    });
    await (
      await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), TEAM_KEY)
    ).text();
    expect((await readRequests(harness)).map((r) => r.rung)).toEqual(["cheap"]);
    const statePath = harness.server.gateway.deps.config.storage.path;
    expect(existsSync(requestLogPathFor(statePath))).toBe(false);
  });

  it("redis: two replicas write one stream; each reads both, and the stream holds no secret and no prompt", async () => {
    const storage = redisStorage();
    prefixes.push(storage.keyPrefix);
    const clock = createClock();
    const config = standardConfig(bed.fakes, { server: TEAM_SERVER });
    const a = await bed.start({ config, env, clock, storage });
    const b = await bed.start({ config, env, clock, storage });
    await (
      await post(a.url, "/v1/chat/completions", chatBody("auto/thrifty", prompt), TEAM_KEY)
    ).text();
    await (
      await post(
        b.url,
        "/v1/messages",
        messagesBody("qwen/qwen3-coder", { ...prompt, stream: true }),
        INTERN_KEY,
      )
    ).text();
    await waitForRequests(b, 1, { key: "intern" });
    for (const replica of [a, b]) {
      expect((await readRequests(replica)).map((r) => r.keyId).sort()).toEqual(["intern", "team"]);
    }
    const client = new Redis(REDIS_URL);
    try {
      const entries = await client.xrange(`${storage.keyPrefix}requests`, "-", "+");
      expect(entries).toHaveLength(2);
      expectNothingSecret(JSON.stringify(entries));
    } finally {
      await client.quit();
    }
  });

  it("sqlite: server.requestLog.maxRecords and maxAgeDays bound what is kept, on the gateway's clock", async () => {
    const harness = await bed.start({
      config: standardConfig(bed.fakes, {
        server: { ...TEAM_SERVER, requestLog: { maxRecords: 3, maxAgeDays: 1 } },
      }),
      env,
    });
    const send = async () => {
      await (
        await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), TEAM_KEY)
      ).text();
      harness.clock.advance(60_000);
    };
    for (let i = 0; i < 5; i++) await send();
    const kept = await readRequests(harness);
    expect(kept).toHaveLength(3);
    const newest = kept[0]!.at;
    harness.clock.advance(DAY);
    await send();
    // A day later only the request of this day is left.
    const later = await readRequests(harness);
    expect(later).toHaveLength(1);
    expect(Date.parse(later[0]!.at)).toBeGreaterThan(Date.parse(newest) + DAY - 60_000);
  });
});
