import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTestGateway,
  TEST_SECRETS,
  type TestGateway,
  testConfigDocument,
} from "./helpers/gateway";
import { runCli } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("simulate-request-log");
let gateway: TestGateway;
let exported: string;
let config: string;

beforeAll(async () => {
  gateway = await startTestGateway({ remainingPercent: 62, resetInMs: 2 * 3_600_000 });
  // $0.20 + $0.08 at the config's qwen price: one request the cheap rung can see in the replay.
  gateway.openrouter.script([{ usage: { inputTokens: 1_000_000, outputTokens: 100_000 } }]);
  for (const model of ["claude-sonnet-4-5", "claude-sonnet-4-5", "qwen/qwen3-coder"]) {
    const response = await gateway.chat(model);
    expect(response.status).toBe(200);
    await response.text();
  }
  // Refused before any upstream answered: in the log, but with no usage to replay.
  expect((await gateway.chat("no-such-model")).status).toBe(404);

  const response = await fetch(`${gateway.url}/v1/requests?format=jsonl`, {
    headers: { authorization: `Bearer ${TEST_SECRETS.TEST_PLANFIRST_KEY}` },
  });
  expect(response.status).toBe(200);
  exported = join(tmp.path, "requests.jsonl");
  await writeFile(exported, await response.text());
  config = join(tmp.path, "planfirst.json");
  await writeFile(
    config,
    JSON.stringify(testConfigDocument(gateway.claude.url, gateway.openrouter.url)),
  );
});
afterAll(async () => {
  await gateway?.close();
});

describe("planfirst simulate --from a gateway's exported request log", () => {
  it("replays the served requests with the usage they had, against the config's budgets and others", async () => {
    const run = await runCli([
      "simulate",
      "--config",
      config,
      "--from",
      exported,
      // A plan too small to hold the first request, so the rest climb to the paid rung.
      "--plan",
      "claude-max=0.00001usd/5h",
      "--compare",
      "--budget",
      "cheap=0",
      "--ids",
      "auto/thrifty",
      "--json",
    ]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.requests).toBe(3);
    expect(document.files).toBe(1);
    expect(document.badLines).toEqual([]);
    // The qwen request at its own price, plus the two plan requests at Claude's metered price.
    expect(document.allMeteredUsd).toBeGreaterThanOrEqual(0.28);
    const [asConfigured, cheapOff] = document.scenarios.map(
      (scenario: {
        ids: { spendUsd: number; refused: number; servedByRung: { cheap: number } }[];
      }) => scenario.ids[0]!,
    );
    expect(asConfigured.servedByRung.cheap).toBeGreaterThan(0);
    expect(asConfigured.spendUsd).toBeGreaterThan(0);
    expect(cheapOff.servedByRung.cheap).toBe(0);
    expect(cheapOff.spendUsd).toBe(0);
    expect(cheapOff.refused).toBeGreaterThan(0);
  });
});
