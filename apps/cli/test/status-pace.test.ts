import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectNoSecret,
  startTestGateway,
  TEST_SECRETS,
  type TestGateway,
} from "./helpers/gateway";
import { runCli } from "./helpers/run-cli";

let gateway: TestGateway;
const withKey = { env: { PLANFIRST_API_KEY: TEST_SECRETS.TEST_PLANFIRST_KEY } };

beforeAll(async () => {
  gateway = await startTestGateway({ remainingPercent: 62, resetInMs: 2 * 3_600_000 });
  const response = await gateway.chat("claude-sonnet-4-5");
  expect(response.status).toBe(200);
  await response.text();
});
afterAll(async () => {
  await gateway?.close();
});

describe("planfirst status, as the status page shows it", () => {
  it("shows where each routing id was last served and the pace of each plan window", async () => {
    const run = await runCli(["status", "--url", gateway.url], withKey);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /Last served\n {2}claude-sonnet-4-5 → subscription \(claude-max, claude-sonnet-4-5\) at \d\d:\d\d:\d\d/,
    );
    expect(run.stdout).toMatch(
      /Pace \(last hour\)\n {2}claude-max 5h: the 5h window is not being used/,
    );
    expectNoSecret(run.stdout + run.stderr);
  });

  it("--json carries the same: lastServed and each window's pace", async () => {
    const run = await runCli(["status", "--url", gateway.url, "--json"], withKey);
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.lastServed["claude-sonnet-4-5"]).toMatchObject({
      rung: "subscription",
      connection: "claude-max",
    });
    const plan = doc.connections.find((c: { id: string }) => c.id === "claude-max");
    expect(plan.quota.windows[0].pace).toMatchObject({ burnPercentPerHour: 0, exhaustsAt: null });
  });
});
