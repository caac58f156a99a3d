import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "@planfirst/fake-upstream";
import { createLogger, type RunningServer, startServer } from "@planfirst/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSecret, TEST_SECRETS, testConfigDocument } from "./helpers/gateway";
import { finished, runCli, startCli, waitForOutput } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

// `planfirst reload` against a running gateway, and SIGHUP to a running `planfirst serve`: both
// re-read the config file the gateway started from.

const tmp = useTempDir("reload");
const LIMITED_KEY = "pf-limited-client-secret-0004";
let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream({ protocol: "both" });
});
afterAll(async () => {
  await upstream?.close();
});

/** The test config, plus a second metered connection serving `glm-4.6` when `extra` is set. */
function document(options: { extra?: boolean } = {}) {
  const base = testConfigDocument(upstream.origin, upstream.url);
  const connections: Record<string, unknown>[] = [...base.connections];
  if (options.extra) {
    connections.push({
      id: "extra",
      provider: "openrouter",
      authType: "apikey",
      protocol: "openai",
      baseUrl: upstream.url,
      credential: "env:TEST_OPENROUTER_KEY",
      models: ["glm-4.6"],
    });
  }
  return {
    ...base,
    server: {
      apiKeys: [
        { key: "env:TEST_PLANFIRST_KEY", id: "ops", role: "admin" },
        { key: "env:LIMITED_KEY", id: "limited", connections: ["claude-max"] },
      ],
    },
    connections,
  };
}

async function models(url: string): Promise<string[]> {
  const response = await fetch(`${url}/v1/models`, {
    headers: { authorization: `Bearer ${TEST_SECRETS.TEST_PLANFIRST_KEY}` },
  });
  const body = (await response.json()) as { data: { id: string }[] };
  return body.data.map((model) => model.id);
}

describe("planfirst reload", () => {
  let server: RunningServer;
  let file: string;
  beforeAll(async () => {
    file = join(tmp.path, "running.json");
    await writeFile(file, JSON.stringify(document()));
    server = await startServer({
      configPath: file,
      port: 0,
      host: "127.0.0.1",
      env: { ...TEST_SECRETS, LIMITED_KEY },
      logger: createLogger({ level: "silent" }),
      print: () => {},
      pollUsage: false,
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  const reload = (key: string | undefined, ...args: string[]) =>
    runCli(["reload", "--url", server.url, ...args], {
      env: { PLANFIRST_API_KEY: key, PLANFIRST_URL: undefined },
    });

  it("makes the gateway serve the file as it is now and prints what changed", async () => {
    await writeFile(file, JSON.stringify(document({ extra: true })));
    const run = await reload(TEST_SECRETS.TEST_PLANFIRST_KEY);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`reloaded ${file}: now serving configuration 2`);
    expect(run.stdout).toContain("connections added: extra");
    expect(await models(server.url)).toContain("glm-4.6");
    expectNoSecret(run.stdout + run.stderr);
  });

  it("exits 1 listing every problem of a file it refused, and the gateway keeps serving", async () => {
    const broken = document({ extra: true });
    (broken.connections[0] as Record<string, unknown>).protocol = "smoke-signals";
    await writeFile(file, JSON.stringify(broken));
    const run = await reload(TEST_SECRETS.TEST_PLANFIRST_KEY);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`invalid configuration in ${file}`);
    expect(run.stderr).toMatch(/connections\[0\]\.protocol: must be one of/);
    expect(await models(server.url)).toContain("glm-4.6");

    const json = await reload(TEST_SECRETS.TEST_PLANFIRST_KEY, "--json");
    expect(json.exitCode).toBe(1);
  });

  it("exits 1 for a key limited to some connections, and 3 when no gateway answers", async () => {
    const limited = await reload(LIMITED_KEY);
    expect(limited.exitCode).toBe(1);
    expect(limited.stderr).toContain("may not administer the gateway");
    expectNoSecret(limited.stderr);

    const nobody = await runCli(["reload", "--url", "http://127.0.0.1:9"], {
      env: { PLANFIRST_API_KEY: TEST_SECRETS.TEST_PLANFIRST_KEY },
    });
    expect(nobody.exitCode).toBe(3);
  });
});

describe("planfirst serve and SIGHUP", () => {
  it("re-reads the config file on SIGHUP, and keeps serving when the file is broken", async () => {
    const file = join(tmp.path, "served.json");
    await writeFile(file, JSON.stringify(document()));
    const child = startCli(["serve", "--config", file, "--port", "0"], {
      env: { ...TEST_SECRETS, LIMITED_KEY },
    });
    const done = finished(child);
    const out = await waitForOutput(child, /listening on (http:\/\/\S+)[\s\S]*openrouter/);
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    expect(await models(url)).not.toContain("glm-4.6");

    await writeFile(file, JSON.stringify(document({ extra: true })));
    child.kill("SIGHUP");
    await waitForOutput(child, /SIGHUP: reloaded .*configuration 2[\s\S]*connections added: extra/);
    expect(await models(url)).toContain("glm-4.6");

    const text = await readFile(file, "utf8");
    await writeFile(
      file,
      text.replace('"storage":{"driver":"memory"}', '"storage":{"driver":"sqlite"}'),
    );
    child.kill("SIGHUP");
    await waitForOutput(child, /storage\.driver: changes need a restart/, 15_000, "stderr");
    expect(await models(url)).toContain("glm-4.6");

    child.kill("SIGTERM");
    const run = await done;
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(
      `SIGHUP: configuration not reloaded: configuration in ${file} not applied`,
    );
    expect(run.stderr).toContain("storage.driver: changes need a restart");
    expectNoSecret(run.stdout + run.stderr);
  });
});
