import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { launchChromium } from "./browser/chromium";
import { chromiumForTests } from "./browser/find-chromium";
import { STANDARD_FAKES, standardConfig } from "./fixtures";
import { chatBody, type Harness, post, useTestBed } from "./harness";
import { INTERN_KEY, TEAM_ENV, TEAM_KEY, TEAM_SERVER } from "./request-log-helpers";

const bed = useTestBed(STANDARD_FAKES);
const executablePath = chromiumForTests("apps/gateway/test/request-log-page.test.ts");
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
});

async function startTeam(): Promise<Harness> {
  const harness = await bed.start({
    config: standardConfig(bed.fakes, { server: TEAM_SERVER }),
    env: { ...TEAM_ENV, PLAN_TOKEN: "" },
  });
  for (const [model, key] of [
    ["auto/thrifty", TEAM_KEY],
    ["anthropic/claude-sonnet-4.5", TEAM_KEY],
    ["qwen/qwen3-coder", INTERN_KEY],
  ] as const) {
    await (await post(harness.url, "/v1/chat/completions", chatBody(model), key)).text();
  }
  return harness;
}

/** The model-asked cell of each row of the page's request table, top to bottom. */
function tableModels(html: string): string[] {
  const body = /<table id="requests-table"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  return [
    ...body.matchAll(/<tr data-request-id="[^"]+"[^>]*>(?:<td>[^<]*<\/td>){2}<td>([^<]*)<\/td>/g),
  ].map((match) => match[1]!);
}

/** A page expression: the request table shows `count` rows. */
function rowCountIs(count: number): string {
  return `document.querySelectorAll("#requests-table tbody tr[data-request-id]").length === ${count}`;
}

async function page(harness: Harness, query: string, headers: Record<string, string>) {
  const response = await fetch(`${harness.url}/${query}`, { headers });
  expect(response.status).toBe(200);
  return response.text();
}

describe("the status page's request table, rendered on the server", () => {
  it("lists the newest requests, filters with a plain GET form, and holds a limited key to its own", async () => {
    const harness = await startTeam();
    const all = await page(harness, "", TEAM_KEY);
    expect(all).toContain('<form method="get" action="/" id="requests-filter"');
    expect(tableModels(all)).toEqual([
      "qwen/qwen3-coder",
      "anthropic/claude-sonnet-4.5",
      "auto/thrifty",
    ]);
    expect(tableModels(await page(harness, "?rung=premium", TEAM_KEY))).toEqual([
      "anthropic/claude-sonnet-4.5",
    ]);
    expect(tableModels(await page(harness, "?key=intern&status=2xx", TEAM_KEY))).toEqual([
      "qwen/qwen3-coder",
    ]);
    const bad = await page(harness, "?status=teapot", TEAM_KEY);
    expect(bad).toContain("status: expected an HTTP status");
    expect(tableModels(bad)).toEqual([]);

    const intern = await page(harness, "", INTERN_KEY);
    expect(tableModels(intern)).toEqual(["qwen/qwen3-coder"]);
    // The key filter is not offered to a key that sees only its own requests.
    expect(intern).not.toContain('name="key"');
    expect(tableModels(await page(harness, "?key=team", INTERN_KEY))).toEqual([]);
  });
});

describe.skipIf(executablePath === null)("the request table in a browser", () => {
  it("filters and refreshes its rows from /v1/requests without a reload", async () => {
    const harness = await startTeam();
    browser = await launchChromium(executablePath!);
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${harness.url}/`);
    await tab.fill("input[name=key]", TEAM_ENV.CLIENT_KEY);
    await Promise.all([tab.waitForURL(`${harness.url}/`), tab.click("button[type=submit]")]);
    const rows = tab.locator("#requests-table tbody tr[data-request-id]");
    expect(await rows.count()).toBe(3);
    await tab.evaluate("window.marker = true");

    await tab.selectOption("select[name=rung]", "premium");
    await tab.waitForFunction(rowCountIs(1));
    expect(tab.url()).toBe(`${harness.url}/?rung=premium`);

    // A new premium request shows up at the next refresh (a filter change asks for one now).
    await (
      await post(
        harness.url,
        "/v1/chat/completions",
        chatBody("anthropic/claude-sonnet-4.5"),
        TEAM_KEY,
      )
    ).text();
    await tab.selectOption("select[name=rung]", "");
    await tab.selectOption("select[name=rung]", "premium");
    await tab.waitForFunction(rowCountIs(2));
    expect(await rows.first().locator("td").nth(2).textContent()).toBe(
      "anthropic/claude-sonnet-4.5",
    );
    expect(await tab.evaluate("window.marker")).toBe(true);
  });
});
