import { requestRecordSchema } from "@planfirst/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectNoSecret,
  startTestGateway,
  TEST_SECRETS,
  type TestGateway,
} from "./helpers/gateway";
import { finished, runCli, startCli } from "./helpers/run-cli";

let gateway: TestGateway;
const withKey = { env: { PLANFIRST_API_KEY: TEST_SECRETS.TEST_PLANFIRST_KEY } };

async function chat(model: string): Promise<void> {
  const response = await gateway.chat(model);
  expect(response.status).toBe(200);
  await response.text();
}

beforeAll(async () => {
  gateway = await startTestGateway({ remainingPercent: 62, resetInMs: 2 * 3_600_000 });
  await chat("claude-sonnet-4-5");
  await chat("qwen/qwen3-coder");
});
afterAll(async () => {
  await gateway?.close();
});

/** Polls `condition` every 20 ms for up to 15 s of real time (output of another process). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the CLI's output");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("planfirst log --url", () => {
  it("prints the requests oldest first: key, model asked, where it was served, status, tokens, cost", async () => {
    const run = await runCli(["log", "--url", gateway.url], withKey);
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}TEST_PLANFIRST_KEY {2}claude-sonnet-4-5 → subscription claude-max \(claude-sonnet-4-5\) {2}200 served {2}in \d+ out \d+ {2}\$0\.00 {2}\d+ ms$/,
    );
    expect(lines[1]).toContain(
      "qwen/qwen3-coder → cheap openrouter (qwen/qwen3-coder)  200 served",
    );
    expectNoSecret(run.stdout + run.stderr);
  });

  it("--json prints one record per line; the filters narrow it", async () => {
    const run = await runCli(["log", "--url", gateway.url, "--json", "--rung", "cheap"], withKey);
    expect(run.exitCode).toBe(0);
    const records = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => requestRecordSchema.parse(JSON.parse(line)));
    expect(records.map((r) => r.modelServed)).toEqual(["qwen/qwen3-coder"]);
    expect(records[0]!.costUsd).toBeGreaterThan(0);
  });

  it("--follow prints each request once, as it ends, until Ctrl-C", async () => {
    const child = startCli(
      ["log", "--url", gateway.url, "--follow", "--interval", "0.2", "--json"],
      withKey,
    );
    const done = finished(child);
    const run = { stdout: "" };
    const lines = () => run.stdout.split("\n").filter(Boolean);
    child.stdout!.on("data", (chunk: Buffer | string) => {
      run.stdout += chunk.toString();
    });
    await until(() => lines().length === 2);
    await chat("claude-sonnet-4-5");
    await until(() => lines().length === 3);
    child.kill("SIGINT");
    const ended = await done;
    expect(ended.exitCode).toBe(0);
    const ids = lines().map((line) => (JSON.parse(line) as { requestId: string }).requestId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(JSON.parse(lines()[2]!)).toMatchObject({ modelAsked: "claude-sonnet-4-5" });
    expectNoSecret(ended.stdout + ended.stderr);
  });

  it("without the client key the gateway refuses, and the hint names the variable", async () => {
    const run = await runCli(["log", "--url", gateway.url], {
      env: { PLANFIRST_API_KEY: undefined },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("PLANFIRST_API_KEY");
  });
});
