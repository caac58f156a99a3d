import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config";
import { createGateway } from "../src/gateway";
import { createLogger } from "../src/observability/logger";
import { chat, ENV, useReloadBed } from "./config-reload-helpers";
import { standardConfig, TEST_ENV } from "./fixtures";

// Reloads the gateway refuses or applies only in part: a broken file, an unset credential, a
// change that needs a restart, a non-loopback address left without client keys.

const { bed, extraConnection, withConnections, startFromFile } = useReloadBed();

describe("config reload", () => {
  it("keeps serving on the old config when the file is broken, naming the path and the reason", async () => {
    const harness = await startFromFile();
    writeFileSync(harness.configPath!, "connections:\n  - id: [unclosed\n");
    const yaml = await harness.server.reload();
    expect(yaml).toMatchObject({ reloaded: false, generation: 1, file: harness.configPath });
    if (yaml.reloaded) throw new Error("unreachable");
    expect(yaml.message).toContain(harness.configPath!);
    expect(yaml.message).toContain("not valid YAML or JSON");
    expect(yaml.problems[0]!.message).not.toBe("");

    const invalid = withConnections((connections) => [
      connections[0]!,
      { ...connections[1]!, protocol: "grpc" as never },
      connections[2]!,
    ]);
    harness.writeConfig(invalid);
    const schema = await harness.server.reload();
    expect(schema.reloaded).toBe(false);
    if (schema.reloaded) throw new Error("unreachable");
    expect(schema.problems).toEqual([
      expect.objectContaining({
        path: "connections[1].protocol",
        message: expect.stringContaining('"openai"'),
      }),
    ]);

    // A client key whose variable is unset is refused, as it is at start.
    harness.writeConfig(standardConfig(bed.fakes, { server: { apiKeys: ["env:UNSET_KEY"] } }));
    const keys = await harness.server.reload();
    expect(keys).toMatchObject({
      reloaded: false,
      problems: [
        { path: "server.apiKeys[0]", message: "environment variable UNSET_KEY is not set" },
      ],
    });

    expect((await chat(harness, "qwen/qwen3-coder")).status).toBe(200);
    expect((await chat(harness, "claude-sonnet-4-5")).status).toBe(200);
    expect(harness.logs.join("")).toContain("configuration not reloaded");
  });

  it("applies a file whose connection credential is unset, disabling that connection with a warning", async () => {
    const harness = await startFromFile();
    const unset = { ...extraConnection(), credential: "env:EXTRA_UNSET" };
    harness.writeConfig(withConnections((connections) => [...connections, unset]));
    const outcome = await harness.server.reload();
    expect(outcome).toMatchObject({
      reloaded: true,
      warnings: ["connection extra is disabled: credential env:EXTRA_UNSET is not set"],
    });
    const logs = harness.logs.join("");
    expect(logs).toContain("credential env:EXTRA_UNSET is not set");
    for (const secret of Object.values(ENV)) expect(logs).not.toContain(secret);
  });

  it("refuses a change that needs a restart and changes nothing else", async () => {
    const harness = await startFromFile();
    harness.writeConfig(withConnections((connections) => [...connections, extraConnection()]));
    const document = JSON.parse(readFileSync(harness.configPath!, "utf8")) as {
      storage: Record<string, unknown>;
      server: Record<string, unknown>;
    };
    document.storage.path = `${document.storage.path}.moved`;
    document.server.requestTimeoutMs = 5_000;
    document.server.requestLog = { maxRecords: 10 };
    writeFileSync(harness.configPath!, JSON.stringify(document));

    const outcome = await harness.server.reload();

    expect(outcome).toMatchObject({
      reloaded: false,
      generation: 1,
      problems: [
        { path: "server.requestTimeoutMs", message: expect.stringContaining("need a restart") },
        {
          path: "server.requestLog.maxRecords",
          message: expect.stringContaining("need a restart"),
        },
        { path: "storage.path", message: expect.stringContaining("need a restart") },
      ],
    });
    expect((await chat(harness, "glm-4.6")).status).toBe(404);
  });

  it("refuses a reload that would leave a non-loopback address without client keys", async () => {
    const keyed = parseConfig({
      server: { host: "0.0.0.0", apiKeys: ["env:CLIENT_KEY"] },
      storage: { driver: "memory" },
    });
    const gateway = createGateway({
      config: keyed,
      env: TEST_ENV,
      listenHost: "0.0.0.0",
      pollUsage: false,
      logger: createLogger({ level: "silent" }),
    });
    try {
      const outcome = await gateway.reload(
        parseConfig({ server: { host: "0.0.0.0" }, storage: { driver: "memory" } }),
      );
      expect(outcome).toMatchObject({
        reloaded: false,
        file: null,
        problems: [{ path: "server.apiKeys" }],
      });
      expect(gateway.deps.config.server.apiKeys).toHaveLength(1);
    } finally {
      await gateway.close();
    }
  });
});
