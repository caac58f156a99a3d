import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectNoSecret,
  startTestGateway,
  TEST_SECRETS,
  type TestGateway,
} from "./helpers/gateway";
import { finished, runCli, startCli, waitForOutput } from "./helpers/run-cli";

const TWO_HOURS_FOURTEEN_MIN_MS = (2 * 3600 + 14 * 60 + 40) * 1000;
let gateway: TestGateway;
const withKey = { env: { PLANFIRST_API_KEY: TEST_SECRETS.TEST_PLANFIRST_KEY } };

beforeAll(async () => {
  gateway = await startTestGateway({ remainingPercent: 62, resetInMs: TWO_HOURS_FOURTEEN_MIN_MS });
  // One request through the plan, so the gateway has seen its quota headers.
  const response = await gateway.chat("claude-sonnet-4-5");
  expect(response.status).toBe(200);
  await response.text();
});
afterAll(async () => {
  await gateway?.close();
});

describe("planfirst explain --url", () => {
  it("--json prints what /v1/ladder returns: the plan connection first on auto/subscription", async () => {
    const run = await runCli(
      ["explain", "auto/subscription", "--url", gateway.url, "--json"],
      withKey,
    );
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.model).toBe("auto/subscription");
    expect(doc.targets).toEqual([
      expect.objectContaining({ connection: "claude-max", rung: "subscription" }),
    ]);
    const plan = doc.ladder.candidates
      .flatMap((c: { connections: unknown[] }) => c.connections)
      .find((c: { connectionId: string }) => c.connectionId === "claude-max");
    expect(plan.quota.remainingPercent).toBe(62);
    expectNoSecret(run.stdout + run.stderr);
  });

  it("the table shows rung, connection, verdict, quota bar with reset countdown and budget", async () => {
    const run = await runCli(["explain", "auto/thrifty", "--url", gateway.url], withKey);
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.split("\n");
    const plan = lines.find((line) => line.startsWith("subscription"))!;
    expect(plan).toContain("claude-max");
    expect(plan).toContain("subscription/hard-stop");
    expect(plan).toMatch(/62% resets in 2h 1[34]m/);
    expect(plan).toMatch(/\bin\b/);
    const paid = lines.find((line) => line.startsWith("cheap"))!;
    expect(paid).toContain("openrouter");
    expect(paid).toContain("$0.00 / $5.00");
    expect(run.stdout).toMatch(/1\. claude-max → claude-sonnet-4-5 \(subscription\)/);
    expect(run.stdout).toMatch(/2\. openrouter → qwen\/qwen3-coder \(cheap\)/);
    expect(run.stdout).not.toContain("\u001b[");
    expectNoSecret(run.stdout + run.stderr);
  });

  it("an unknown model id exits 1 with the gateway's message", async () => {
    const run = await runCli(["explain", "no-such-model", "--url", gateway.url], withKey);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("no-such-model");
  });

  it("without the client key the gateway refuses: exit 1, and the hint names the variable", async () => {
    const run = await runCli(["explain", "auto/thrifty", "--url", gateway.url], {
      env: { PLANFIRST_API_KEY: undefined },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("PLANFIRST_API_KEY");
  });

  it("an unreachable gateway exits 3", async () => {
    const run = await runCli(["explain", "auto/thrifty", "--url", "http://127.0.0.1:9"], withKey);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain("unreachable");
  });

  it("--session and -H say where a session would go and why", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_SECRETS.TEST_PLANFIRST_KEY}`,
        "content-type": "application/json",
        "x-session-affinity": "job-1",
      },
      body: JSON.stringify({
        model: "auto/thrifty",
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    await response.text();
    const hash = response.headers.get("x-planfirst-session")?.slice(0, 16) ?? "";
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    const byHash = await runCli(
      ["explain", "auto/thrifty", "--url", gateway.url, "--session", hash],
      withKey,
    );
    expect(byHash.exitCode).toBe(0);
    expect(byHash.stdout).toContain(`session ${hash}: affinity=hit, pinned to claude-max`);
    expect(byHash.stdout).toMatch(
      /a request of this session would try, in order:\n\s+1\. claude-max/,
    );
    const byHeader = await runCli(
      [
        "explain",
        "auto/thrifty",
        "--url",
        gateway.url,
        "-H",
        "x-session-affinity: job-1",
        "--json",
      ],
      withKey,
    );
    expect(byHeader.exitCode).toBe(0);
    expect(JSON.parse(byHeader.stdout).session).toMatchObject({ hash, affinity: "hit" });
    expectNoSecret(byHash.stdout + byHeader.stdout);
  });

  it("a --session that is not a hash, and -H without --url, are usage errors (exit 2)", async () => {
    const notHash = await runCli(
      ["explain", "auto/thrifty", "--url", gateway.url, "--session", "job-1"],
      withKey,
    );
    expect(notHash.exitCode).toBe(2);
    expect(notHash.stderr).toContain("16 hex characters");
    const headerOffline = await runCli([
      "explain",
      "auto/thrifty",
      "--config",
      "x.yaml",
      "-H",
      "x-session-affinity: job-1",
    ]);
    expect(headerOffline.exitCode).toBe(2);
    expect(headerOffline.stderr).toContain("--header needs --url");
  });

  it("--config and --url together are a usage error (exit 2)", async () => {
    const run = await runCli([
      "explain",
      "auto/thrifty",
      "--url",
      gateway.url,
      "--config",
      "x.yaml",
    ]);
    expect(run.exitCode).toBe(2);
  });
});

describe("planfirst status", () => {
  it("--json prints what /v1/status returns", async () => {
    const run = await runCli(["status", "--url", gateway.url, "--json"], withKey);
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    const plan = doc.connections.find((c: { id: string }) => c.id === "claude-max");
    expect(plan.quota.remainingPercent).toBe(62);
    expect(doc.budgets.map((b: { rung: string }) => b.rung)).toEqual(["cheap", "premium"]);
    expect(doc.requestsLastHour.subscription).toBeGreaterThanOrEqual(1);
    expectNoSecret(run.stdout + run.stderr);
  });

  it("the view shows quota windows with resets, budgets and requests per rung", async () => {
    const run = await runCli(["status", "--url", gateway.url], withKey);
    expect(run.exitCode).toBe(0);
    const plan = run.stdout.split("\n").find((line) => line.startsWith("claude-max"))!;
    expect(plan).toContain("subscription/hard-stop");
    expect(plan).toMatch(/5h\s+\[██████░░░░\]\s+62% resets in 2h 1[34]m/);
    expect(run.stdout).toMatch(/cheap\s+day:\S+\s+\$0\.00 \/ \$5\.00/);
    expect(run.stdout).toMatch(/premium\s+day:\S+\s+disabled/);
    // A client key's view: its own spend per rung, and its own budget over every paid rung.
    expect(run.stdout).toContain("Budgets (paid rungs, spend of key TEST_PLANFIRST_KEY)");
    expect(run.stdout).toMatch(
      /Key budgets \(every paid rung\)\n.*\n.*\n\s*TEST_PLANFIRST_KEY\s+day:\S+\s+\$0\.00 \/ \$2\.00\s+\$0\.00\s+\d/,
    );
    expect(run.stdout).toMatch(/Requests in the last hour: subscription [1-9]/);
    expectNoSecret(run.stdout + run.stderr);
  });

  it("an unreachable gateway exits 3", async () => {
    const run = await runCli(["status", "--url", "http://127.0.0.1:9"]);
    expect(run.exitCode).toBe(3);
  });

  it("--watch redraws until SIGINT, then exits 0", async () => {
    const child = startCli(
      ["status", "--url", gateway.url, "--watch", "--interval", "0.2", "--json"],
      withKey,
    );
    const done = finished(child);
    const seen = await waitForOutput(child, /\n.*\n/);
    expect(JSON.parse(seen.split("\n")[0]!).connections).toHaveLength(2);
    child.kill("SIGINT");
    const run = await done;
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim().split("\n").length).toBeGreaterThanOrEqual(2);
  });
});
