import { describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import { getJson, useTestBed, waitFor } from "./harness";
import {
  HOUR,
  lastBody,
  planReadings,
  SESSION_ENV,
  SESSION_FAKES,
  send,
  sessionConfig,
  turn,
} from "./sessions";

// ladder.md §16, AF7: the cache hints a session's request carries upstream, and what the status
// shows of sessions and of the cache reads they buy.

const bed = useTestBed(SESSION_FAKES);

describe("prompt cache hints on the way upstream", () => {
  it("AF7: an OpenAI upstream gets a prompt_cache_key derived from the session when the client sent none; a generic server gets none", async () => {
    const harness = await bed.start({
      config: sessionConfig(bed.fakes, {
        connections: [
          {
            id: "openai",
            provider: "openai",
            authType: "apikey",
            protocol: "openai",
            baseUrl: bed.fakes.cheap1.url,
            credential: "env:ROUTER_KEY",
            models: ["gpt-5-mini"],
          },
          {
            id: "compatible",
            provider: "deepseek",
            authType: "apikey",
            protocol: "openai",
            baseUrl: bed.fakes.cheap2.url,
            credential: "env:ROUTER_KEY",
            models: ["deepseek-chat"],
          },
        ],
        catalog: {
          models: [
            { provider: "openai", model: "gpt-5-mini", inputPerMTok: 0.25, outputPerMTok: 2 },
            { provider: "deepseek", model: "deepseek-chat", inputPerMTok: 0.3, outputPerMTok: 1 },
          ],
        },
        categories: {},
      }),
      env: SESSION_ENV,
    });
    const ours = await send(harness, turn("gpt-5-mini", "cache", 1));
    const hash = ours.session?.slice(0, 16);
    expect(lastBody(bed.fakes.cheap1).prompt_cache_key).toBe(`planfirst-${hash}`);
    await send(harness, turn("gpt-5-mini", "cache", 1, { prompt_cache_key: "client-own" }));
    expect(lastBody(bed.fakes.cheap1).prompt_cache_key).toBe("client-own");
    await send(harness, turn("deepseek-chat", "cache", 1));
    expect(lastBody(bed.fakes.cheap2)).not.toHaveProperty("prompt_cache_key");
  });

  it("AF7: the operator can say a compatible server takes one (promptCacheKey: true)", async () => {
    const harness = await bed.start({
      config: sessionConfig(bed.fakes, {
        connections: [
          {
            id: "compatible",
            provider: "deepseek",
            authType: "apikey",
            protocol: "openai",
            baseUrl: bed.fakes.cheap2.url,
            credential: "env:ROUTER_KEY",
            models: ["deepseek-chat"],
            promptCacheKey: true,
          },
        ],
        catalog: {
          models: [
            { provider: "deepseek", model: "deepseek-chat", inputPerMTok: 0.3, outputPerMTok: 1 },
          ],
        },
        categories: {},
      }),
      env: SESSION_ENV,
    });
    const answer = await send(harness, turn("deepseek-chat", "cache", 1));
    expect(lastBody(bed.fakes.cheap2).prompt_cache_key).toBe(
      `planfirst-${answer.session?.slice(0, 16)}`,
    );
  });
});

describe("sessions and cache reads on the status", () => {
  it("counts live sessions per connection, and per paid rung how much input was read from the cache", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    await send(harness, turn("auto/subscription", "one", 1));
    await send(harness, turn("auto/subscription", "two", 1));
    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    await send(harness, turn("auto/subscription", "three", 1));
    bed.fakes.cheap1.script(() => ({
      usage: { inputTokens: 1_000, outputTokens: 10, cachedInputTokens: 900 },
    }));
    await send(harness, turn("vendor/coder", "paid", 1));
    await send(harness, turn("vendor/coder", "paid", 2));

    await waitFor(
      async () =>
        (await getJson<GatewayStatus>(harness.url, "/v1/status")).cacheReadsLastHour?.cheap
          ?.inputTokens === 2_000,
      { what: "both settles in the spend records" },
    );
    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const sessionsOf = (id: string) => status.connections.find((c) => c.id === id)?.liveSessions;
    expect(sessionsOf("plan-b")).toBe(2);
    expect(sessionsOf("plan-a")).toBe(1);
    expect(sessionsOf("cheap-1")).toBe(1);
    expect(sessionsOf("cheap-2")).toBe(0);
    expect(status.cacheReadsLastHour?.cheap).toEqual({
      inputTokens: 2_000,
      cachedInputTokens: 1_800,
      cacheWriteTokens: 0,
      readPercent: 90,
    });
    expect(status.cacheReadsLastHour?.premium?.readPercent).toBeNull();
    const page = await (await fetch(`${harness.url}/`)).text();
    const planB = page.slice(page.indexOf('data-connection="plan-b"'));
    expect(planB.slice(0, planB.indexOf("</article>"))).toContain("2 live sessions");
    expect(page).toContain("90% of 2,000 input tokens read from the prompt cache in the last hour");

    // Idle sessions are not live.
    harness.clock.advance(HOUR);
    const later = await getJson<GatewayStatus>(harness.url, "/v1/status");
    expect(later.connections.every((connection) => connection.liveSessions === 0)).toBe(true);
  });
});
