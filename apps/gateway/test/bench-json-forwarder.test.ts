import { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startInstantUpstream } from "../bench/instant-upstream";
import { type ForwarderLedger, startJsonForwarder } from "../bench/json-forwarder";
import { REDIS_URL } from "./harness";

// The load benchmark's reference rows measure the JSON forwarder; checked here so that a bench
// run does not find out first that it no longer forwards, relays a stream, or books its spend.

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function forwarder(ledger: ForwarderLedger | null, upstreamDown = false) {
  const upstream = await startInstantUpstream();
  if (upstreamDown) upstream.close();
  else closers.push(upstream.close);
  const started = await startJsonForwarder(new URL(upstream.url), { ledger });
  closers.push(started.close);
  return started;
}

const post = (url: string, stream: boolean) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "auto/thrifty",
      stream,
      max_tokens: 64,
      messages: [{ role: "user", content: "Say ok." }],
    }),
  });

describe("the benchmark's JSON forwarder", () => {
  it("answers the upstream's completion and relays its stream", async () => {
    const { url, ledger } = await forwarder(null);
    expect(ledger).toBeNull();
    const whole = await post(url, false);
    expect(whole.status).toBe(200);
    expect(await whole.json()).toMatchObject({ object: "chat.completion" });
    const stream = await post(url, true);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(await stream.text()).toMatch(/data: \[DONE\]\n\n$/);
  });
});

describe.each(["sqlite", "redis"] as const)("the JSON forwarder on the %s ledger", (store) => {
  it("reserves before and settles after every answer, whole or streamed", async () => {
    const { url, ledger } = await forwarder(store);
    for (const stream of [false, true, false]) {
      const answer = await post(url, stream);
      expect(answer.status).toBe(200);
      await answer.text();
    }
    // Settles are not awaited by the answer: they land in the store's next batch.
    await vi.waitFor(() => expect(ledger!.spentUsd("cheap")).toBeCloseTo(0.0003, 10));
    expect(ledger!.reservedUsd("cheap")).toBe(0);
  });

  it("gives the hold back when the upstream does not answer", async () => {
    const { url, ledger } = await forwarder(store, true);
    await expect(post(url, false)).rejects.toThrow();
    await vi.waitFor(() => expect(ledger!.reservedUsd("cheap")).toBe(0));
    expect(ledger!.spentUsd("cheap")).toBe(0);
  });
});

describe("the JSON forwarder on the Redis ledger", () => {
  it("leaves no key in the shared Redis once closed", async () => {
    const started = await forwarder("redis");
    await (await post(started.url, false)).text();
    // The forwarder's close is the last closer pushed: run it now, not again after the test.
    await closers.pop()!();
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const keys = await redis.keys(`*planfirst-bench-forwarder-${process.pid}-*`);
      expect(keys).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
