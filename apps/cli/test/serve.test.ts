import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSecret, TEST_SECRETS, testConfigDocument } from "./helpers/gateway";
import { finished, startCli, waitForOutput } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("serve");
let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream({ protocol: "both" });
});
afterAll(async () => {
  await upstream?.close();
});

describe("planfirst serve", () => {
  it("prints its address, data date and connections, answers /healthz, exits 0 on SIGTERM", async () => {
    const file = join(tmp.path, "planfirst.json");
    const document = testConfigDocument(upstream.origin, upstream.url);
    document.storage = { driver: "sqlite", path: join(tmp.path, "state.db") } as never;
    await writeFile(file, JSON.stringify(document));
    const child = startCli(["serve", "--config", file, "--port", "0"], {
      env: { ...TEST_SECRETS, TEST_OPENROUTER_KEY: undefined },
    });
    const done = finished(child);
    const out = await waitForOutput(child, /listening on (http:\/\/\S+)[\s\S]*openrouter/);
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    expect(out).toMatch(/data date \d{4}-\d{2}-\d{2}/);
    expect(out).toMatch(
      /claude-max \(claude\): subscription\/hard-stop, rung subscription, quota not verified/,
    );
    expect(out).toMatch(
      /openrouter \(openrouter\): disabled, credential env:TEST_OPENROUTER_KEY is not set/,
    );

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    child.kill("SIGTERM");
    const run = await done;
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("stopped");
    expectNoSecret(run.stdout + run.stderr);
  });

  it("without --config and planfirst.yaml it serves the committed example and says so", async () => {
    const cwd = await tmp.exampleCwd();
    const child = startCli(["serve", "--port", "0"], { cwd });
    const done = finished(child);
    const out = await waitForOutput(child, /listening on (http:\/\/\S+)/);
    expect(out).toContain("using planfirst.example.yaml");
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    child.kill("SIGINT");
    expect((await done).exitCode).toBe(0);
  });

  it("a bad --port is a usage error (exit 2)", async () => {
    const run = await finished(startCli(["serve", "--port", "99999"]));
    expect(run.exitCode).toBe(2);
  });

  it("an invalid config exits 1 naming the path", async () => {
    const file = join(tmp.path, "invalid.yaml");
    await writeFile(file, "server:\n  port: many\n");
    const run = await finished(startCli(["serve", "--config", file]));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("server.port");
  });
});
