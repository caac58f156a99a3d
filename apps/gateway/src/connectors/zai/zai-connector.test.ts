import { readFileSync } from "node:fs";
import { type FakePlanProviders, startFakePlanProviders } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createZaiConnector } from "./zai-connector";
import { classifyZaiFailure, zaiResetFromMessage } from "./zai-failure";
import { parseZaiUsage, zaiUsageRefusal } from "./zai-usage";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8"));

const nowMs = Date.UTC(2026, 8, 8, 20, 0, 0);
let fakes: FakePlanProviders;
beforeAll(async () => {
  fakes = await startFakePlanProviders({ now: () => nowMs });
});
afterAll(() => fakes.close());

describe("z.ai usage", () => {
  it("reads TOKENS_LIMIT as the 5 h window (percentage used, reset in epoch ms) and skips tool calls", () => {
    const windows = parseZaiUsage(fixture("quota-limit.json"), nowMs);
    expect(windows).toEqual([
      expect.objectContaining({
        windowId: "5h",
        remainingPercent: 99,
        rawUsedPercent: 1,
        resetAt: new Date(1771073738808).toISOString(),
        windowSeconds: 18_000,
        status: "ok",
      }),
    ]);
  });

  it("treats the HTTP 200 bad-key answer as a refusal, not as an empty plan", () => {
    const body = fixture("quota-limit-bad-key.json");
    expect(parseZaiUsage(body, nowMs)).toEqual([]);
    expect(zaiUsageRefusal(body)).toBe("401");
    expect(zaiUsageRefusal(fixture("quota-limit.json"))).toBeNull();
  });
});

/** A z.ai answer as its connector reads it, observed at `nowMs`. */
function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  return { status, headers, body, observedAtMs: nowMs };
}

describe("z.ai failures", () => {
  it("1308 is the 5 h window, resetting at the Beijing time of the message (UTC+8)", () => {
    expect(classifyZaiFailure(answer(429, fixture("error-1308.json")))).toEqual({
      kind: "window_exhausted",
      retryAt: null,
      resetAt: "2026-09-08T21:38:28.000Z",
      code: "1308",
      windowId: "5h",
    });
  });

  it("maps each code: 1310 and 1316–1321 quota, 1302 rate, 1305 overload, 1113 no plan", () => {
    const kind = (code: string | number, status = 429) =>
      classifyZaiFailure(answer(status, JSON.stringify({ error: { code, message: "x" } })))?.kind;
    expect(kind("1310")).toBe("window_exhausted");
    for (const code of [1316, 1317, 1318, 1319, 1320, 1321])
      expect(kind(code)).toBe("window_exhausted");
    expect(kind("1302")).toBe("rate_limited");
    expect(kind("1305")).toBe("overloaded");
    expect(classifyZaiFailure(answer(429, fixture("error-1113.json")))).toMatchObject({
      kind: "misconfigured",
      detail: "z.ai refused the key: no coding plan or balance on it (1113)",
      resetAt: null,
      code: "1113",
    });
    expect(kind("1214", 400)).toBeUndefined();
    expect(classifyZaiFailure(answer(401, "not json"))?.kind).toBe("auth_invalid");
    expect(
      classifyZaiFailure(answer(429, { error: { code: "1302" } }, { "retry-after": "30" }))
        ?.retryAt,
    ).toBe(new Date(nowMs + 30_000).toISOString());
  });

  it("reads a reset that carries its own offset as written", () => {
    expect(zaiResetFromMessage("reset at 2026-09-09T05:38:28Z")).toBe("2026-09-09T05:38:28.000Z");
    expect(zaiResetFromMessage("no time here")).toBeNull();
  });
});

describe("z.ai connector against the fake", () => {
  it("sends Bearer to chat, the bare key to the monitor API, and classifies its 1308", async () => {
    const c = createZaiConnector({
      id: "zai-coding",
      provider: "zai",
      authType: "apikey",
      baseUrl: fakes.zai.baseUrl,
      credential: fakes.zai.apiKey,
    });
    const prepared = c.prepare({ model: "glm-4.6", stream: false });
    expect(prepared).not.toBeInstanceOf(Promise);
    const { url, headers } = prepared as { url: string; headers: Record<string, string> };
    expect(url).toBe(`${fakes.zai.baseUrl}/chat/completions`);
    const body = JSON.stringify({ model: "glm-4.6", messages: [] });
    expect((await fetch(url, { method: "POST", headers, body })).status).toBe(200);

    const usage = c.usageRequest() as { url: string; headers: Record<string, string> };
    expect(usage.url).toBe(fakes.zai.usageUrl);
    const reading = c.readUsage(
      await (await fetch(usage.url, { headers: usage.headers })).json(),
      nowMs,
    );
    expect(reading.windows[0]).toMatchObject({ windowId: "5h", remainingPercent: 80 });
    // No live signal says whether the plan bills: its hard stop is the catalog's word.
    expect(reading).not.toHaveProperty("evidence");
    expect(reading).not.toHaveProperty("refusal");

    fakes.zai.exhaustedUntilBeijing = "2026-09-09 05:38:28";
    const refused = await fetch(url, { method: "POST", headers, body });
    fakes.zai.exhaustedUntilBeijing = null;
    const read = c.readResponse({
      status: refused.status,
      headers: Object.fromEntries(refused.headers),
      body: await refused.text(),
      observedAtMs: nowMs,
    });
    expect(read.failure).toMatchObject({
      kind: "window_exhausted",
      resetAt: "2026-09-08T21:38:28.000Z",
    });
    expect(read.evidence).toBeUndefined();

    // A key the monitor API refuses inside its 200 is read as that refusal.
    expect(c.readUsage(fixture("quota-limit-bad-key.json"), nowMs)).toEqual({
      windows: [],
      refusal: "401",
    });
  });
});

describe("z.ai connector on the Anthropic endpoint", () => {
  it("sends the key as x-api-key to /api/anthropic/v1/messages", () => {
    const c = createZaiConnector({
      id: "zai-coding",
      provider: "zai",
      authType: "apikey",
      protocol: "anthropic-messages",
      baseUrl: "https://api.z.ai/api/anthropic",
      credential: "zai-key",
    });
    expect(c.protocol).toBe("anthropic-messages");
    expect(c.prepare({ model: "glm-4.6", stream: true })).toMatchObject({
      url: "https://api.z.ai/api/anthropic/v1/messages",
      headers: { "x-api-key": "zai-key", accept: "text/event-stream" },
    });
    expect(c.usageRequest()).toMatchObject({
      url: "https://api.z.ai/api/monitor/usage/quota/limit",
    });
  });
});
