import { serverError } from "@planfirst/fake-upstream";
import { afterAll, describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import {
  chatBody,
  createClock,
  deleteRedisKeys,
  messagesBody,
  post,
  redisStorage,
  useTestBed,
  waitFor,
} from "./harness";

const bed = useTestBed(STANDARD_FAKES);

const KEYS = {
  ALICE_KEY: "pf-alice-secret-value-701",
  BOB_KEY: "pf-bob-secret-value-702",
  CAROL_KEY: "pf-carol-secret-value-703",
};
const alice = { authorization: `Bearer ${KEYS.ALICE_KEY}` };
const bob = { authorization: `Bearer ${KEYS.BOB_KEY}` };
const carol = { authorization: `Bearer ${KEYS.CAROL_KEY}` };

function config(categories: Record<string, string[]> = {}) {
  return standardConfig(bed.fakes, {
    server: {
      apiKeys: [
        { key: "env:ALICE_KEY", id: "alice", requestsPerMinute: 2 },
        { key: "env:BOB_KEY", id: "bob" },
        { key: "env:CAROL_KEY", id: "carol", maxConcurrent: 1 },
      ],
    },
    categories,
  });
}

function start(options: { configFile?: boolean } = {}) {
  return bed.start({ config: config(), env: { ...TEST_ENV, ...KEYS }, ...options });
}

/** A promise the test resolves by hand, to hold an upstream answer back. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe("a client key's request limits", () => {
  it("requestsPerMinute: over it, 429 key_rate_limited until the oldest request leaves the last 60 s; other keys are not counted", async () => {
    const harness = await start();
    const send = (headers: Record<string, string>) =>
      post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), headers);
    expect((await send(alice)).status).toBe(200);
    harness.clock.advance(20_000);
    expect((await send(alice)).status).toBe(200);

    const over = await send(alice);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBe("40");
    const error = await errorOf(over);
    expect(error.code).toBe("key_rate_limited");
    expect(error.message).toContain('client key "alice"');
    expect((await send(bob)).status).toBe(200);
    expect(bed.fakes.plan.completionHits()).toHaveLength(3);

    harness.clock.advance(39_000);
    const still = await send(alice);
    expect(still.status).toBe(429);
    expect(still.headers.get("retry-after")).toBe("1");
    harness.clock.advance(1_000);
    expect((await send(alice)).status).toBe(200);
    // The first request has left the window, the second not yet.
    expect((await send(alice)).status).toBe(429);
    expect(bed.fakes.plan.completionHits()).toHaveLength(4);
    // Counting tokens bills nothing and is not one of the key's requests.
    const counted = await post(
      harness.url,
      "/v1/messages/count_tokens",
      messagesBody("claude-sonnet-4-5"),
      alice,
    );
    expect(counted.status).toBe(200);
  });

  it("maxConcurrent: a request over it gets 429 key_rate_limited with Retry-After 1 and sends nothing; the slot frees when the answer is whole", async () => {
    const harness = await start();
    const held = gate();
    let calls = 0;
    bed.fakes.plan.script(async () => {
      calls += 1;
      if (calls === 1) await held.opened;
      return {};
    });
    const first = post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol);
    await waitFor(() => bed.fakes.plan.completionHits().length === 1, {
      what: "the first request to reach the plan",
    });

    const second = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol);
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe("1");
    expect((await errorOf(second)).code).toBe("key_rate_limited");
    expect(
      (await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), bob)).status,
    ).toBe(200);
    expect(bed.fakes.plan.completionHits()).toHaveLength(2);

    held.open();
    expect((await first).status).toBe(200);
    expect(
      (await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol)).status,
    ).toBe(200);
  });

  it("maxConcurrent: a stream holds its slot until its client goes away", async () => {
    const harness = await start();
    bed.fakes.router.script([{ stream: { chunks: ["one ", "two"], chunkDelayMs: 10_000 } }]);
    const abort = new AbortController();
    const streaming = await fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...carol },
      body: JSON.stringify(chatBody("qwen/qwen3-coder", { stream: true })),
      signal: abort.signal,
    });
    expect(streaming.status).toBe(200);
    const reader = streaming.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("one ");

    const during = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol);
    expect(during.status).toBe(429);

    abort.abort();
    await waitFor(
      async () =>
        (await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol)).status ===
        200,
      { what: "the stream's slot to be given back" },
    );
  });

  it("maxConcurrent: a failed request gives its slot back once, not twice", async () => {
    const harness = await start();
    bed.fakes.router.script([serverError("openai")]);
    const failed = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder"),
      carol,
    );
    expect(failed.status).toBe(502);

    const held = gate();
    bed.fakes.plan.script(async () => {
      await held.opened;
      return {};
    });
    const first = post(harness.url, "/v1/messages", messagesBody("claude-sonnet-4-5"), carol);
    await waitFor(() => bed.fakes.plan.completionHits().length === 1, {
      what: "the held request to reach the plan",
    });
    // Had the failure given its slot back twice, this one would be let through.
    const second = await post(
      harness.url,
      "/v1/messages",
      messagesBody("claude-sonnet-4-5"),
      carol,
    );
    expect(second.status).toBe(429);
    held.open();
    expect((await first).status).toBe(200);
  });

  it("maxConcurrent: a request in flight on the configuration a reload replaced still holds its slot", async () => {
    const harness = await start({ configFile: true });
    const held = gate();
    bed.fakes.plan.script(async () => {
      await held.opened;
      return {};
    });
    const first = post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol);
    await waitFor(() => bed.fakes.plan.completionHits().length === 1, {
      what: "the first request to reach the plan",
    });

    harness.writeConfig(config({ coding: ["claude-sonnet-4-5"] }));
    expect((await harness.server.reload()).reloaded).toBe(true);
    const during = await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"), carol);
    expect(during.status).toBe(429);

    held.open();
    expect((await first).status).toBe(200);
    bed.fakes.plan.script([]);
    const after = await post(
      harness.url,
      "/v1/messages",
      messagesBody("auto/coding:thrifty"),
      carol,
    );
    expect(after.status).toBe(200);
  });
});

describe("a client key's request limits on Redis storage", () => {
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const prefix of prefixes) await deleteRedisKeys(prefix);
  });

  it("two replicas count one key's requests together: its rate and its requests in flight", async () => {
    const storage = redisStorage();
    prefixes.push(storage.keyPrefix);
    const clock = createClock();
    const env = { ...TEST_ENV, ...KEYS };
    const a = await bed.start({ config: config(), env, clock, storage });
    const b = await bed.start({ config: config(), env, clock, storage });
    const send = (url: string, headers: Record<string, string>) =>
      post(url, "/v1/messages", messagesBody("auto/thrifty"), headers);

    // alice: requestsPerMinute 2, one request on each replica.
    expect((await send(a.url, alice)).status).toBe(200);
    clock.advance(10_000);
    expect((await send(b.url, alice)).status).toBe(200);
    for (const url of [a.url, b.url]) {
      const over = await send(url, alice);
      expect(over.status).toBe(429);
      expect(over.headers.get("retry-after")).toBe("50");
      expect((await errorOf(over)).code).toBe("key_rate_limited");
    }
    expect((await send(b.url, bob)).status).toBe(200);

    // carol: maxConcurrent 1, held on one replica, refused on the other until it ends.
    const held = gate();
    const hits = bed.fakes.plan.completionHits().length;
    bed.fakes.plan.script(async () => {
      await held.opened;
      return {};
    });
    const first = send(a.url, carol);
    await waitFor(() => bed.fakes.plan.completionHits().length === hits + 1, {
      what: "carol's first request to reach the plan",
    });
    const during = await send(b.url, carol);
    expect(during.status).toBe(429);
    expect(during.headers.get("retry-after")).toBe("1");
    expect(bed.fakes.plan.completionHits()).toHaveLength(hits + 1);
    held.open();
    expect((await first).status).toBe(200);
    bed.fakes.plan.script([]);
    await waitFor(async () => (await send(b.url, carol)).status === 200, {
      what: "carol's slot to be given back on the other replica",
    });
  });
});
