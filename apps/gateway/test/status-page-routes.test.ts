import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import type { HistoryBucket } from "../src/status/history-store";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, deleteRedisKeys, post, redisStorage, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES);
const hour = 3_600_000;
const auth = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` };
const dir = mkdtempSync(join(tmpdir(), "planfirst-status-routes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyed() {
  return standardConfig(bed.fakes, { server: { apiKeys: ["env:CLIENT_KEY"] } });
}

/** Reads server-sent events from `response` until `until` holds for one of them. */
async function readEvents(
  response: Response,
  until: (event: { event: string; data: string }) => boolean,
): Promise<{ event: string; data: string }[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: string }[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? "";
      if (event) {
        events.push({ event, data });
        if (until({ event, data })) {
          await reader.cancel();
          return events;
        }
      }
      end = buffer.indexOf("\n\n");
    }
  }
  return events;
}

describe("the status routes behind client keys", () => {
  it("answer HEAD / with a bare 200 to anyone, and show the login form instead of the page without a key", async () => {
    const harness = await bed.start({ config: keyed(), env: TEST_ENV });
    const head = await fetch(`${harness.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const login = await fetch(`${harness.url}/`);
    expect(login.status).toBe(401);
    const page = await login.text();
    expect(page).toContain('<form method="post" action="/status/login">');
    expect(page).not.toContain("data-connection");
    // A key in the query string opens nothing (it would land in logs).
    const queried = await (await fetch(`${harness.url}/?key=${TEST_ENV.CLIENT_KEY}`)).text();
    expect(queried).not.toContain("data-connection");
    expect((await fetch(`${harness.url}/v1/status`)).status).toBe(401);
    expect((await fetch(`${harness.url}/v1/status/events`)).status).toBe(401);
    expect((await fetch(`${harness.url}/v1/status/history`)).status).toBe(401);
    // The completion API stays behind the key as before.
    expect((await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"))).status).toBe(
      401,
    );
  });

  it("log in with the key in a form body; the cookie opens the page and /v1/status but not the completion API", async () => {
    const harness = await bed.start({ config: keyed(), env: TEST_ENV });
    const wrong = await fetch(`${harness.url}/status/login`, {
      method: "POST",
      body: new URLSearchParams({ key: "pf-not-a-key" }),
      redirect: "manual",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("not a client key of this gateway");
    const login = await fetch(`${harness.url}/status/login`, {
      method: "POST",
      body: new URLSearchParams({ key: TEST_ENV.CLIENT_KEY }),
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/");
    const setCookie = login.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(TEST_ENV.CLIENT_KEY);
    const cookie = setCookie.split(";")[0]!;
    const page = await (await fetch(`${harness.url}/`, { headers: { cookie } })).text();
    expect(page).toContain('data-connection="claude-plan"');
    expect((await fetch(`${harness.url}/v1/status`, { headers: { cookie } })).status).toBe(200);
    const api = await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), {
      cookie,
    });
    expect(api.status).toBe(401);
    // No secret in what the page or the status document show.
    const json = await (await fetch(`${harness.url}/v1/status`, { headers: auth })).text();
    for (const secret of Object.values(TEST_ENV)) {
      expect(json).not.toContain(secret);
      expect(page).not.toContain(secret);
    }
  });

  it("push a status event at once, then again when a request is served, with the last-served rung", async () => {
    const harness = await bed.start({ config: keyed(), env: TEST_ENV });
    const events = await fetch(`${harness.url}/v1/status/events`, { headers: auth });
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    let served = false;
    const seen = readEvents(events, (event) => {
      const push = JSON.parse(event.data) as { now: string; html: string };
      if (!served) {
        served = true;
        void post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), auth).then((r) =>
          r.text(),
        );
        return false;
      }
      return push.html.includes('data-marker="auto/thrifty"');
    });
    const all = await seen;
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all.every((event) => event.event === "status")).toBe(true);
    const last = JSON.parse(all.at(-1)!.data) as { now: string; html: string };
    expect(last.now).toBe(new Date(harness.clock.now()).toISOString());
    const status = (await (
      await fetch(`${harness.url}/v1/status`, { headers: auth })
    ).json()) as GatewayStatus;
    expect(status.lastServed["auto/thrifty"]).toMatchObject({ rung: "subscription" });
  });
});

describe("the status feed under load", () => {
  it("looks at most about four times a second however many requests are served, and still shows the last", async () => {
    const harness = await bed.start({ config: keyed(), env: TEST_ENV });
    const events = await fetch(`${harness.url}/v1/status/events`, { headers: auth });
    const serve = async (model: string) => {
      const reply = await post(harness.url, "/v1/chat/completions", chatBody(model), auth);
      expect(reply.status).toBe(200);
      await reply.text();
    };
    let pushes = 0;
    let startedAt = 0;
    const seen = readEvents(events, (event) => {
      pushes += 1;
      if (startedAt === 0) {
        startedAt = performance.now();
        void (async () => {
          // Each request changes the snapshot, so a look after each would push each; the last
          // asks for a model of its own, which only a push made after it shows.
          for (let index = 0; index < 60; index++) {
            await serve(index % 2 === 0 ? "auto/thrifty" : "auto/subscription");
          }
          await serve("claude-sonnet-4-5");
        })();
        return false;
      }
      return event.data.includes(`data-served-id=\\"claude-sonnet-4-5\\"`);
    });
    // Ends once a push shows the last request served: no change is lost to the spacing.
    await seen;
    const elapsedMs = performance.now() - startedAt;
    // A look per request pushed once per request (62 here); spaced 250 ms apart, the looks
    // push the first rendering, one per 250 ms of traffic, and the last.
    expect(pushes).toBeLessThanOrEqual(Math.floor(elapsedMs / 250) + 3);
  });
});

describe("overage evidence on the status page", () => {
  it("shows the newest evidence with its source, and 'no evidence' before any", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    const card = async () => {
      const html = await (await fetch(`${harness.url}/`)).text();
      const start = html.indexOf('data-connection="claude-plan"');
      return html.slice(start, html.indexOf("</article>", start));
    };
    expect(await card()).toContain("overage evidence: no evidence");
    // What the Claude signal parsers hand the cache when a reply says extra usage is off.
    const cache = harness.server.gateway.deps.quotaCache as unknown as {
      observeEvidence(id: string, observation: Record<string, string>): void;
    };
    cache.observeEvidence("claude-plan", {
      evidence: "off",
      observedAt: new Date(harness.clock.now()).toISOString(),
      source: "claude-header",
      detail: "overage-status=rejected",
    });
    const shown = await card();
    expect(shown).toContain(
      "overage evidence: <b>off</b> (claude-header, 10:00:00, overage-status=rejected)",
    );
    const status = (await (await fetch(`${harness.url}/v1/status`)).json()) as GatewayStatus;
    expect(status.connections.find((c) => c.id === "claude-plan")!.overageEvidence).toEqual({
      evidence: "off",
      source: "claude-header",
      observedAt: new Date(harness.clock.now()).toISOString(),
      detail: "overage-status=rejected",
    });
  });
});

describe("the status history", () => {
  it("survives a restart on the same SQLite file and shows the plan's pace from the last hour", async () => {
    const storage = { driver: "sqlite" as const, path: join(dir, "state.db") };
    const first = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV, storage });
    const clock = first.clock;
    const resetAtMs = clock.now() + 4 * hour;
    // 20 % of the 5 h window used in the hour: at 20 %/h the 40 % left lasts 2 h, and the
    // reset is 3 h away, so the window runs out an hour before it resets.
    bed.fakes.plan.usage(claudeUsagePayload(40, resetAtMs), { endpoint: "claude" });
    await first.server.gateway.refreshUsage();
    await (await post(first.url, "/v1/chat/completions", chatBody("auto/thrifty"))).text();
    await fetch(`${first.url}/v1/status`);
    clock.advance(hour);
    bed.fakes.plan.usage(claudeUsagePayload(60, resetAtMs), { endpoint: "claude" });
    await first.server.gateway.refreshUsage();
    const status = (await (await fetch(`${first.url}/v1/status`)).json()) as GatewayStatus;
    const fiveHour = status.connections
      .find((c) => c.id === "claude-plan")!
      .quota!.windows.find((w) => w.windowId === "5h")!;
    expect(fiveHour.pace.burnPercentPerHour).toBeCloseTo(20, 5);
    expect(fiveHour.pace.summary).toBe(
      "at this pace (20 %/h) the 5h window runs out 1 h before it resets",
    );
    await first.close();

    const second = await bed.start({
      config: standardConfig(bed.fakes),
      env: TEST_ENV,
      storage,
      clock,
    });
    const { buckets } = (await (await fetch(`${second.url}/v1/status/history`)).json()) as {
      buckets: HistoryBucket[];
    };
    const requests = buckets.reduce((sum, b) => sum + (b.requests.subscription ?? 0), 0);
    expect(requests).toBe(1);
    const readings = buckets
      .map((b) => b.levels["remaining:claude-plan:5h"]?.value)
      .filter((v) => v !== undefined);
    expect(readings).toEqual([60, 40]);
  });

  it("survives a restart on Redis, under the gateway's key prefix", async () => {
    const storage = redisStorage();
    try {
      const first = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV, storage });
      for (let i = 0; i < 3; i++) {
        await (await post(first.url, "/v1/chat/completions", chatBody("auto/thrifty"))).text();
      }
      await first.close();
      const second = await bed.start({
        config: standardConfig(bed.fakes),
        env: TEST_ENV,
        storage,
        clock: first.clock,
      });
      const { buckets } = (await (await fetch(`${second.url}/v1/status/history`)).json()) as {
        buckets: HistoryBucket[];
      };
      const served = buckets.reduce(
        (sum, b) => sum + Object.values(b.requests).reduce((a, n) => a + n, 0),
        0,
      );
      expect(served).toBe(3);
    } finally {
      await deleteRedisKeys(storage.keyPrefix);
    }
  });
});
