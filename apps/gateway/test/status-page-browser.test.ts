import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeRateLimited, claudeUnifiedHeaders } from "@planfirst/fake-upstream";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config";
import { createLogger } from "../src/observability/logger";
import { type RunningServer, startServer } from "../src/server";
import type { GatewayStatus } from "../src/status/gateway-status";
import { launchChromium, maybeUpdateScreenshot, pngFacts } from "./browser/chromium";
import { chromiumForTests } from "./browser/find-chromium";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, createClock, post, useTestBed } from "./harness";

/** Null skips every test below; in CI a missing browser fails the file instead. */
const executablePath = chromiumForTests("apps/gateway/test/status-page-browser.test.ts");
const hour = 3_600_000;
const auth = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` };

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({
    config: standardConfig(fakes, { server: { apiKeys: ["env:CLIENT_KEY"] } }),
    env: TEST_ENV,
  }),
});

let browser: Browser;
let context: BrowserContext;
let page: Page;
let shots: string;

// Hooks run only when some test of the file does, so a browser was found.
beforeAll(async () => {
  shots = mkdtempSync(join(tmpdir(), "planfirst-status-shots-"));
  browser = await launchChromium(executablePath!);
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  if (process.env.KEEP_STATUS_SHOTS !== "1") rmSync(shots, { recursive: true, force: true });
});

async function status(): Promise<GatewayStatus> {
  const response = await fetch(`${bed.harness.url}/v1/status`, { headers: auth });
  expect(response.status).toBe(200);
  return (await response.json()) as GatewayStatus;
}

async function thrifty(): Promise<string | null> {
  const response = await post(
    bed.harness.url,
    "/v1/chat/completions",
    chatBody("auto/thrifty"),
    auth,
  );
  await response.text();
  expect(response.status).toBe(200);
  return response.headers.get("x-planfirst-rung");
}

/** The meter of a plan window on the page, read as the page shows it. */
function meterOf(windowKey: string) {
  return page.locator(`[data-window="${windowKey}"] [role="meter"]`);
}

/** Seconds a countdown text says ("resets in 1 h 59 min", "resets in 4 min 30 s"). */
function secondsOf(text: string): number {
  const h = /(\d+) h/.exec(text)?.[1] ?? "0";
  const m = /(\d+) min/.exec(text)?.[1] ?? "0";
  const s = /(\d+) s\b/.exec(text)?.[1] ?? "0";
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

describe.skipIf(executablePath === null)("the status page in a browser", () => {
  it("opens behind the client key through a login form that sets an HttpOnly, SameSite=Strict cookie", async () => {
    const clock = bed.harness.clock;
    bed.fakes.plan.usage(claudeUsagePayload(60, clock.now() + 2 * hour), { endpoint: "claude" });
    await bed.harness.server.gateway.refreshUsage();
    expect(await thrifty()).toBe("subscription");

    // The page's own timers run on a clock the test moves, starting at the gateway's time.
    await page.clock.install({ time: clock.now() });
    await page.goto(`${bed.harness.url}/`);
    await expect(
      page.locator('form[action="/status/login"] input[name=key]').count(),
    ).resolves.toBe(1);
    expect(await page.locator("[data-window]").count()).toBe(0);
    await page.fill("input[name=key]", TEST_ENV.CLIENT_KEY);
    await Promise.all([page.waitForURL(`${bed.harness.url}/`), page.click("button[type=submit]")]);
    expect(page.url()).toBe(`${bed.harness.url}/`);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "planfirst_status", httpOnly: true, sameSite: "Strict" });
    expect(cookie!.value).not.toContain(TEST_ENV.CLIENT_KEY);
    await page.waitForSelector("#live:text('live')");
  });

  it("shows every window's bar as /v1/status has it, and the served-rung marker on the plan", async () => {
    const snapshot = await status();
    let checked = 0;
    for (const connection of snapshot.connections) {
      for (const window of connection.quota?.windows ?? []) {
        if (window.remainingPercent === null) continue;
        const meter = meterOf(`${connection.id}:${window.windowId}`);
        expect(await meter.getAttribute("aria-valuenow")).toBe(window.remainingPercent.toFixed(0));
        expect(await meter.getAttribute("aria-label")).toContain(
          `${window.remainingPercent.toFixed(0)}% remaining`,
        );
        checked++;
      }
    }
    expect(checked).toBe(2);
    expect(await meterOf("claude-plan:5h").getAttribute("aria-valuenow")).toBe("40");
    expect(await page.locator("#rung-subscription .marker").textContent()).toContain(
      "auto/thrifty",
    );
    expect(await page.locator("#rung-cheap .marker").count()).toBe(0);
  });

  it("ticks the reset countdown without a reload", async () => {
    const countdown = page.locator('[data-window="claude-plan:5h"] .countdown');
    const before = secondsOf((await countdown.textContent()) ?? "");
    expect(before).toBeGreaterThan(hour / 1000 - 120);
    await page.clock.runFor(3 * 60_000);
    const after = secondsOf((await countdown.textContent()) ?? "");
    expect(before - after).toBeGreaterThanOrEqual(170);
    expect(before - after).toBeLessThanOrEqual(190);
  });

  it("empties the plan's bar and moves the marker to the paid rung when the plan runs out, without a reload", async () => {
    const clock = bed.harness.clock;
    const resetAtMs = clock.now() + 90 * 60_000;
    // Set in the page: it survives only if the page is never reloaded.
    await page.evaluate("window.marker = true");
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 5400 }),
    ]);
    expect(await thrifty()).toBe("cheap");
    await page.waitForSelector('[data-window="claude-plan:5h"] [role="meter"][aria-valuenow="0"]', {
      timeout: 5_000,
    });
    await page.waitForSelector('#rung-cheap .marker[data-marker~="auto/thrifty"]', {
      timeout: 5_000,
    });
    expect(await page.locator("#rung-subscription .marker").count()).toBe(0);
    expect(await page.locator('[data-connection="claude-plan"] .state').textContent()).toContain(
      "cooling down until",
    );
    // Why it is out, in the words /v1/ladder uses.
    const ladder = (await (
      await fetch(`${bed.harness.url}/v1/ladder?model=auto/thrifty`, { headers: auth })
    ).json()) as { excluded: { connectionId: string; reason: string }[] };
    const reason = ladder.excluded.find((e) => e.connectionId === "claude-plan")?.reason;
    expect(reason).toBeDefined();
    expect(await page.locator('[data-connection="claude-plan"] .out').textContent()).toContain(
      reason!,
    );
    // The same document: no reload happened.
    expect(await page.evaluate("window.marker === true")).toBe(true);
  });

  it("moves the marker back to the plan once the reset passes and a fresh reading arrives", async () => {
    const clock = bed.harness.clock;
    clock.set(clock.now() + 90 * 60_000 + 1_000);
    bed.fakes.plan.usage(claudeUsagePayload(0, clock.now() + 5 * hour), { endpoint: "claude" });
    await bed.harness.server.gateway.refreshUsage();
    await page.waitForSelector(
      '[data-window="claude-plan:5h"] [role="meter"][aria-valuenow="100"]',
      {
        timeout: 5_000,
      },
    );
    bed.fakes.plan.script(() => ({
      headers: claudeUnifiedHeaders({
        fiveHour: { utilization: 0.02, resetAtSec: Math.floor((clock.now() + 5 * hour) / 1000) },
      }),
    }));
    expect(await thrifty()).toBe("subscription");
    await page.waitForSelector('#rung-subscription .marker[data-marker~="auto/thrifty"]', {
      timeout: 5_000,
    });
    expect(await page.locator("#rung-cheap .marker").count()).toBe(0);
    expect(await page.evaluate("window.marker === true")).toBe(true);
  });

  it("is a complete snapshot with JavaScript off", async () => {
    const staticContext = await browser.newContext({ javaScriptEnabled: false });
    await staticContext.addCookies(await context.cookies());
    const staticPage = await staticContext.newPage();
    await staticPage.goto(`${bed.harness.url}/`);
    expect(await staticPage.locator("#live").textContent()).toBe("snapshot");
    expect(
      await staticPage
        .locator('[data-window="claude-plan:5h"] [role="meter"]')
        .getAttribute("aria-valuenow"),
    ).toBe((await meterOf("claude-plan:5h").getAttribute("aria-valuenow")) ?? "missing");
    expect(await staticPage.locator("#chart-requests rect").count()).toBeGreaterThan(0);
    // Small: the whole page, styles, charts and script included, is a few tens of kB.
    const html = await (await fetch(`${bed.harness.url}/`, { headers: auth })).text();
    expect(Buffer.byteLength(html)).toBeLessThan(48_000);
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)=/);
    await staticContext.close();
  });

  it("renders at 375 and 1440 px, light and dark, with real content in the screenshots", async () => {
    // A busy hour for the picture: the plan burning through its 5 h window, requests served.
    const clock = bed.harness.clock;
    const resetAtMs = clock.now() + 4 * hour;
    bed.fakes.plan.script(() => ({}));
    for (const used of [10, 25, 40]) {
      clock.advance(20 * 60_000);
      bed.fakes.plan.usage(claudeUsagePayload(used, resetAtMs), { endpoint: "claude" });
      await bed.harness.server.gateway.refreshUsage();
      expect(await thrifty()).toBe("subscription");
      await status();
    }
    await page.waitForSelector(
      '[data-window="claude-plan:5h"] [role="meter"][aria-valuenow="60"]',
      {
        timeout: 5_000,
      },
    );
    expect(await page.locator('[data-window="claude-plan:5h"] .pace').textContent()).toMatch(
      /^at this pace \(38 %\/h\) the 5h window runs out 1 h \d+ min before it resets$/,
    );
    const blankPage = await browser.newPage({ viewport: { width: 375, height: 800 } });
    const blank = pngFacts(await blankPage.screenshot());
    await blankPage.close();
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      const png = await page.screenshot({ fullPage: true });
      const path = join(shots, `status-${width}.png`);
      writeFileSync(path, png);
      const facts = pngFacts(png);
      expect(facts.width).toBe(width);
      expect(facts.height).toBeGreaterThan(900);
      expect(facts.bytes).toBeGreaterThan(blank.bytes * 5);
      expect(facts.distinctBytes).toBeGreaterThan(blank.distinctBytes + 100);
      // No horizontal scrolling at either width.
      expect(
        await page.evaluate<number>("document.documentElement.scrollWidth"),
      ).toBeLessThanOrEqual(width);
      if (width === 1440) {
        maybeUpdateScreenshot(resolve(__dirname, "../../../docs/status-page.png"), png);
      }
    }
    const background = () =>
      page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    await page.emulateMedia({ colorScheme: "light" });
    const light = await background();
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await background();
    expect(light).not.toBe(dark);
    await page.emulateMedia({ colorScheme: "light" });
  });

  it("needs no login without client keys, and reconnects by itself after the gateway restarts", async () => {
    const port = await freePort();
    const clock = createClock();
    const config = parseConfig({
      ...standardConfig(bed.fakes),
      storage: { driver: "sqlite", path: join(shots, "restart.db") },
      server: { host: "127.0.0.1", port, logLevel: "silent" },
    });
    const start = () =>
      startServer({
        config,
        env: TEST_ENV,
        now: clock.now,
        logger: createLogger({ level: "silent" }),
        print: () => undefined,
        pollUsage: false,
      });
    const url = `http://127.0.0.1:${port}`;
    const openContext = await browser.newContext();
    const openPage = await openContext.newPage();
    let server: RunningServer = await start();
    try {
      await openPage.goto(`${url}/`);
      expect(await openPage.locator('form[action="/status/login"] input[name=key]').count()).toBe(
        0,
      );
      await openPage.waitForSelector("#live:text('live')");
      await (await post(url, "/v1/chat/completions", chatBody("auto/thrifty"))).text();
      await openPage.waitForSelector('#rung-subscription .marker[data-marker~="auto/thrifty"]');
      await openPage.evaluate("window.marker = true");

      await server.close();
      await openPage.waitForSelector("#live:text('reconnecting…')", { timeout: 5_000 });
      server = await start();
      bed.fakes.plan.script([
        claudeRateLimited({
          resetAtSec: Math.floor((clock.now() + hour) / 1000),
          retryAfterSec: 3600,
        }),
      ]);
      await (await post(url, "/v1/chat/completions", chatBody("auto/thrifty"))).text();
      await openPage.waitForSelector('#rung-cheap .marker[data-marker~="auto/thrifty"]', {
        timeout: 10_000,
      });
      expect(await openPage.locator("#live").textContent()).toBe("live");
      expect(await openPage.evaluate("window.marker === true")).toBe(true);
    } finally {
      await openContext.close();
      await server.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
