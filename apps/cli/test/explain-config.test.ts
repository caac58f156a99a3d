import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSecret, TEST_SECRETS, testConfigDocument } from "./helpers/gateway";
import { runCli } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("explain");
let file: string;
let claude: FakeUpstream;
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

beforeAll(async () => {
  claude = await startFakeUpstream({ protocol: "anthropic", name: "claude" });
  // The Claude OAuth usage endpoint: utilization is percent used.
  claude.usage(
    {
      five_hour: { utilization: 40, resets_at: inHours(3) },
      seven_day: { utilization: 10, resets_at: inHours(90) },
    },
    { endpoint: "claude" },
  );
  file = join(tmp.path, "planfirst.json");
  await writeFile(
    file,
    // The metered connection points at a closed port: its usage poll fails.
    JSON.stringify(testConfigDocument(claude.origin, "http://127.0.0.1:9/v1")),
  );
});
afterAll(async () => {
  await claude?.close();
});

const bothCredentials = {
  TEST_CLAUDE_TOKEN: TEST_SECRETS.TEST_CLAUDE_TOKEN,
  TEST_OPENROUTER_KEY: TEST_SECRETS.TEST_OPENROUTER_KEY,
  TEST_PLANFIRST_KEY: undefined,
};

describe("planfirst explain --config", () => {
  it("reads the plan's quota from its usage endpoint and admits it on auto/subscription", async () => {
    const run = await runCli(["explain", "auto/subscription", "--config", file, "--json"], {
      env: bothCredentials,
    });
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.targets).toEqual([
      expect.objectContaining({ connection: "claude-max", rung: "subscription" }),
    ]);
    const plan = doc.ladder.candidates[0].connections[0];
    expect(plan.quota.remainingPercent).toBe(60);
    expect(claude.hits.some((hit) => hit.kind === "usage")).toBe(true);
    expectNoSecret(run.stdout + run.stderr);
  });

  it("the table says where the quota came from, a failed poll included", async () => {
    const run = await runCli(["explain", "auto/thrifty", "--config", file], {
      env: bothCredentials,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /a quota read of the usage endpoints \(1 refreshed; poll failed: openrouter\)/,
    );
    const plan = run.stdout.split("\n").find((line) => line.startsWith("subscription"))!;
    expect(plan).toMatch(/60% resets in [23]h/);
    expect(run.stdout).toMatch(/1\. claude-max → claude-sonnet-4-5 \(subscription\)/);
    expectNoSecret(run.stdout + run.stderr);
  });

  it("SUB1 with --no-refresh and nothing stored, auto/subscription admits nothing and says why", async () => {
    const run = await runCli(["explain", "auto/subscription", "--config", file, "--no-refresh"], {
      env: { TEST_CLAUDE_TOKEN: TEST_SECRETS.TEST_CLAUDE_TOKEN, TEST_OPENROUTER_KEY: undefined },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("the stored quota state");
    const plan = run.stdout.split("\n").find((line) => line.includes("claude-max"))!;
    expect(plan).toContain("out");
    expect(plan).toContain("SUB1");
    expect(run.stdout).toContain("no target");
    // The metered connection is disabled: its credential variable is named, not valued.
    expect(run.stdout).toContain("TEST_OPENROUTER_KEY");
  });

  it("an undefined category exits 1 at once and lists the defined ones", async () => {
    const run = await runCli(["explain", "auto/vision:thrifty", "--config", file]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("coding");
  });
});
