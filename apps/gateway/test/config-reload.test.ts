import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { openAiRateLimited, startFakeGeminiCodeAssist } from "@planfirst/fake-upstream";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config";
import type { GatewayConfigInput } from "../src/config/schema";
import { createGateway } from "../src/gateway";
import { createLogger } from "../src/observability/logger";
import type { GatewayStatus } from "../src/status/gateway-status";
import {
  type ConnectionInput,
  claudeUsagePayload,
  STANDARD_FAKES,
  standardConfig,
  TEST_ENV,
} from "./fixtures";
import { chatBody, type Harness, post, useTestBed, waitFor } from "./harness";

// Reloading the config of a running gateway (SIGHUP, `planfirst reload`, the file watch all end
// in `reload()`): a real gateway on loopback started from a real config file in a temp dir,
// over a real SQLite file, in front of fake upstreams.

const bed = useTestBed({ ...STANDARD_FAKES, extra: "openai" });
const EXTRA_KEY = "sk-extra-secret-value-444";
const ENV = { ...TEST_ENV, EXTRA_KEY };

/** A metered connection serving `glm-4.6` on the `extra` fake. */
function extraConnection(): ConnectionInput {
  return {
    id: "extra",
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai",
    baseUrl: bed.fakes.extra.url,
    credential: "env:EXTRA_KEY",
    models: ["glm-4.6"],
    timeoutMs: 5_000,
  };
}

/** The standard config with `change` applied to its connection list. */
function withConnections(
  change: (connections: ConnectionInput[]) => ConnectionInput[],
  overrides: Partial<GatewayConfigInput> = {},
): GatewayConfigInput {
  const base = standardConfig(bed.fakes, overrides);
  return { ...base, connections: change([...(base.connections ?? [])]) };
}

function startFromFile(config: GatewayConfigInput = standardConfig(bed.fakes)) {
  return bed.start({ config, env: ENV, configFile: true });
}

function chat(harness: Harness, model: string, headers: Record<string, string> = {}) {
  return post(harness.url, "/v1/chat/completions", chatBody(model), headers);
}

async function status(harness: Harness): Promise<GatewayStatus> {
  return (await (await fetch(`${harness.url}/v1/status`)).json()) as GatewayStatus;
}

function budgetOf(view: GatewayStatus, rung: string) {
  return view.budgets.find((budget) => budget.rung === rung)!;
}

describe("config reload", () => {
  it("serves a connection the reloaded file adds on the very next request", async () => {
    const harness = await startFromFile();
    expect((await chat(harness, "glm-4.6")).status).toBe(404);

    harness.writeConfig(withConnections((connections) => [...connections, extraConnection()]));
    const outcome = await harness.server.reload();

    expect(outcome).toMatchObject({
      reloaded: true,
      generation: 2,
      file: harness.configPath,
      connections: { added: ["extra"], removed: [], changed: [] },
    });
    const response = await chat(harness, "glm-4.6");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-connection")).toBe("extra");
    expect(bed.fakes.extra.completionHits()).toHaveLength(1);
    expect(harness.logs.join("")).toContain("configuration reloaded");
  });

  it("routes nothing more to a connection the reloaded file removes", async () => {
    const harness = await startFromFile();
    expect((await chat(harness, "anthropic/claude-sonnet-4.5")).status).toBe(200);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(1);

    harness.writeConfig(
      withConnections((connections) => connections.filter((c) => c.id !== "openrouter-premium")),
    );
    const outcome = await harness.server.reload();

    expect(outcome).toMatchObject({
      reloaded: true,
      connections: { added: [], removed: ["openrouter-premium"], changed: [] },
    });
    const response = await chat(harness, "anthropic/claude-sonnet-4.5");
    expect(response.status).toBe(404);
    expect((await chat(harness, "auto/thrifty")).status).toBe(200);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(1);
    expect((await status(harness)).connections.map((c) => c.id)).not.toContain(
      "openrouter-premium",
    );
  });

  it("applies a changed budget to the spend booked before the reload, which is kept", async () => {
    const harness = await startFromFile();
    expect((await chat(harness, "qwen/qwen3-coder")).status).toBe(200);
    await waitFor(async () => budgetOf(await status(harness), "cheap").spentUsd > 0, {
      what: "the settle of the paid request",
    });
    const spentUsd = budgetOf(await status(harness), "cheap").spentUsd;

    // A budget below what is already spent: the cheap rung is exhausted at once.
    harness.writeConfig(
      standardConfig(bed.fakes, { subscriptionLadder: { rungBudgetUsd: { cheap: spentUsd / 2 } } }),
    );
    expect((await harness.server.reload()).reloaded).toBe(true);

    const lowered = budgetOf(await status(harness), "cheap");
    expect(lowered.spentUsd).toBe(spentUsd);
    expect(lowered.budgetUsd).toBe(spentUsd / 2);
    // The ladder now gates the cheap rung: the only target of the model is out, for its budget.
    const refused = await chat(harness, "qwen/qwen3-coder");
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "no_available_target",
        reasons: [
          { connection: "openrouter", reason: expect.stringContaining("cheap budget spent") },
        ],
      },
    });
    expect(bed.fakes.router.completionHits()).toHaveLength(1);

    harness.writeConfig(standardConfig(bed.fakes));
    expect((await harness.server.reload()).reloaded).toBe(true);
    expect((await chat(harness, "qwen/qwen3-coder")).status).toBe(200);
    expect(bed.fakes.router.completionHits()).toHaveLength(2);
  });

  it("lets a stream in flight finish unharmed on the config it started on (openai SDK)", async () => {
    const harness = await startFromFile();
    const chunks = ["one ", "two ", "three ", "four ", "five ", "six"];
    bed.fakes.router.script([{ stream: { chunks, chunkDelayMs: 150 } }]);
    const openai = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const { data: stream, response } = await openai.chat.completions
      .create({
        model: "qwen/qwen3-coder",
        messages: [{ role: "user", content: "count to six" }],
        stream: true,
      })
      .withResponse();
    expect(response.headers.get("x-planfirst-connection")).toBe("openrouter");
    let text = "";
    let finishReason: string | null = null;
    let ended = false;
    let firstChunk: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      firstChunk = resolve;
    });
    const reading = (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
        if (text !== "") firstChunk();
      }
      ended = true;
    })();
    await started;

    // The file now removes the very connection that is streaming.
    harness.writeConfig(
      withConnections((connections) => connections.filter((c) => c.id !== "openrouter")),
    );
    const outcome = await harness.server.reload();
    expect(outcome).toMatchObject({ reloaded: true, connections: { removed: ["openrouter"] } });
    expect(ended).toBe(false);
    const drained = () => harness.logs.some((line) => line.includes("generation drained"));
    expect(drained()).toBe(false);

    await reading;
    expect(text).toBe(chunks.join(""));
    expect(finishReason).toBe("stop");
    // The old configuration is let go once its last request, this stream, has closed.
    await waitFor(drained, { what: "the first configuration to drain" });
    expect((await chat(harness, "qwen/qwen3-coder")).status).toBe(404);
    // Its spend is settled through the old configuration's ledger into the shared store.
    await waitFor(async () => budgetOf(await status(harness), "cheap").spentUsd > 0, {
      what: "the settle of the stream",
    });
  });

  it("keeps a limited connection's requests in flight across a reload: its maxConcurrent still counts them", async () => {
    const limited = (connections: ConnectionInput[]) =>
      connections.map((c) =>
        c.id === "openrouter" ? { ...c, maxConcurrent: 1, maxQueueWaitMs: 0 } : c,
      );
    const harness = await startFromFile(withConnections(limited));
    let release: () => void = () => undefined;
    const holdUntil = new Promise<void>((resolve) => {
      release = resolve;
    });
    bed.fakes.router.script([{ stream: { chunks: ["held", " stream"], holdUntil } }, {}]);
    const held = await post(harness.url, "/v1/chat/completions", {
      ...chatBody("qwen/qwen3-coder"),
      stream: true,
    });
    expect(held.status).toBe(200);

    harness.writeConfig(
      withConnections(limited, { subscriptionLadder: { rungBudgetUsd: { cheap: 6 } } }),
    );
    expect(await harness.server.reload()).toMatchObject({ reloaded: true });
    // The stream still holds the one slot: the new configuration's request is refused at once
    // (no wait in line is configured) instead of making it two in flight.
    const second = await chat(harness, "qwen/qwen3-coder");
    expect(second.status).toBe(503);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe(
      "local_capacity",
    );
    expect(bed.fakes.router.completionHits()).toHaveLength(1);

    release();
    expect(await held.text()).toContain("held");
    await waitFor(async () => (await chat(harness, "qwen/qwen3-coder")).status === 200, {
      what: "the slot to come back",
    });
  });

  it("keeps the quota readings and cooldowns of the connections that stay", async () => {
    const harness = await startFromFile();
    bed.fakes.plan.usage(claudeUsagePayload(30, harness.clock.now() + 7_200_000), {
      endpoint: "claude",
    });
    await harness.server.gateway.refreshUsage();
    bed.fakes.router.script([openAiRateLimited({ retryAfterSec: 600, tryAgainInSec: 600 })]);
    expect((await chat(harness, "qwen/qwen3-coder")).status).toBe(429);
    const before = await status(harness);
    const planBefore = before.connections.find((c) => c.id === "claude-plan")!;
    const routerBefore = before.connections.find((c) => c.id === "openrouter")!;
    expect(planBefore.quota?.remainingPercent).toBe(70);
    expect(routerBefore.cooldowns).toHaveLength(1);

    harness.writeConfig(withConnections((connections) => [...connections, extraConnection()]));
    expect((await harness.server.reload()).reloaded).toBe(true);

    const after = await status(harness);
    const planAfter = after.connections.find((c) => c.id === "claude-plan")!;
    const routerAfter = after.connections.find((c) => c.id === "openrouter")!;
    expect(planAfter.quota).toEqual(planBefore.quota);
    expect(routerAfter.cooldowns).toEqual(routerBefore.cooldowns);
    // The cooled connection is still skipped: nothing more reaches it.
    await chat(harness, "qwen/qwen3-coder");
    expect(bed.fakes.router.completionHits()).toHaveLength(1);
  });

  it("ends the status page's event streams, so open pages reconnect to the new config", async () => {
    const harness = await startFromFile();
    const events = await fetch(`${harness.url}/v1/status/events`);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("event: status")) seen += (await reader.read()).value ?? "";
    expect(seen).not.toContain("extra");

    harness.writeConfig(withConnections((connections) => [...connections, extraConnection()]));
    expect((await harness.server.reload()).reloaded).toBe(true);

    // The stream ends (no more reads pending); a new one shows the added connection.
    for (;;) if ((await reader.read()).done) break;
    const again = await fetch(`${harness.url}/v1/status/events`);
    const next = again.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: status")) text += (await next.read()).value ?? "";
    expect(text).toContain("extra");
    await next.cancel();
  });

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

  it("answers POST /v1/admin/reload for an admin key, and no other caller", async () => {
    const keys = {
      apiKeys: [
        { key: "env:ADMIN_KEY", id: "ops", role: "admin" as const },
        { key: "env:TEAM_KEY", id: "team", connections: ["claude-plan"] },
      ],
    };
    const harness = await bed.start({
      config: standardConfig(bed.fakes, { server: keys }),
      env: { ...ENV, ADMIN_KEY: "pf-admin-secret-555", TEAM_KEY: "pf-team-secret-666" },
      configFile: true,
    });
    const reload = (key?: string) =>
      fetch(`${harness.url}/v1/admin/reload`, {
        method: "POST",
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });

    expect((await reload()).status).toBe(401);
    const limited = await reload("pf-team-secret-666");
    expect(limited.status).toBe(403);
    expect(await limited.json()).toMatchObject({
      error: { code: "admin_key_required", message: expect.stringContaining("team") },
    });

    harness.writeConfig(
      withConnections((connections) => [...connections, extraConnection()], { server: keys }),
    );
    const done = await reload("pf-admin-secret-555");
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({
      reloaded: true,
      generation: 2,
      connections: { added: ["extra"] },
    });

    writeFileSync(harness.configPath!, "{ not json");
    const broken = await reload("pf-admin-secret-555");
    expect(broken.status).toBe(422);
    const body = (await broken.json()) as {
      error: { code: string; message: string; generation: number; problems: unknown[] };
    };
    expect(body.error).toMatchObject({ code: "config_reload_refused", generation: 2 });
    expect(body.error.message).toContain(harness.configPath!);
    expect(body.error.problems).toHaveLength(1);
    expect(JSON.stringify(body)).not.toContain("pf-admin-secret-555");
  });

  it("refuses POST /v1/admin/reload on a gateway without client keys (SIGHUP reloads it)", async () => {
    const harness = await startFromFile();
    const response = await fetch(`${harness.url}/v1/admin/reload`, { method: "POST" });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      error: { code: "admin_key_required", message: expect.stringContaining("SIGHUP") },
    });
  });

  it("follows the file with server.reloadOnChange, through editors that replace it", async () => {
    const watched = (config: GatewayConfigInput): GatewayConfigInput => ({
      ...config,
      server: { ...config.server, reloadOnChange: true },
    });
    const harness = await startFromFile(watched(standardConfig(bed.fakes)));
    const models = async () =>
      (
        (await (await fetch(`${harness.url}/v1/models`)).json()) as { data: { id: string }[] }
      ).data.map((model) => model.id);
    // Save as editors do: a new file renamed over the old one.
    const save = (config: GatewayConfigInput) => {
      const path = harness.configPath!;
      harness.writeConfig(config);
      const text = readFileSync(path, "utf8");
      writeFileSync(`${path}.swp`, text);
      renameSync(`${path}.swp`, path);
    };

    save(watched(withConnections((connections) => [...connections, extraConnection()])));
    await waitFor(async () => (await models()).includes("glm-4.6"), {
      what: "the watch to reload the added connection",
    });
    save(watched(standardConfig(bed.fakes)));
    await waitFor(async () => !(await models()).includes("glm-4.6"), {
      what: "the watch to follow the replaced file",
    });
    expect((await chat(harness, "claude-sonnet-4-5")).status).toBe(200);
  });

  it("keeps the connector of a connection whose settings did not change, with its login state", async () => {
    const gemini = await startFakeGeminiCodeAssist();
    try {
      const geminiConnection: ConnectionInput = {
        id: "gemini-ca",
        provider: "gemini-code-assist",
        authType: "oauth",
        protocol: "gemini",
        baseUrl: gemini.baseUrl,
        credential: {
          refreshToken: "env:GEMINI_REFRESH",
          tokenUrl: gemini.tokenUrl,
          clientId: gemini.clientId,
        },
        models: ["gemini-2.5-pro"],
        timeoutMs: 5_000,
      };
      const config = (extra: ConnectionInput[]) =>
        withConnections((connections) => [geminiConnection, ...connections, ...extra]);
      const harness = await bed.start({
        config: config([]),
        env: { ...ENV, GEMINI_REFRESH: gemini.refreshToken },
        configFile: true,
      });
      const setUps = () => gemini.hits.filter((hit) => hit.path.endsWith(":loadCodeAssist"));
      expect((await chat(harness, "gemini-2.5-pro")).status).toBe(200);
      expect(setUps()).toHaveLength(1);
      expect(gemini.refreshes).toBe(1);

      harness.writeConfig(config([extraConnection()]));
      expect((await harness.server.reload()).reloaded).toBe(true);
      expect((await chat(harness, "gemini-2.5-pro")).status).toBe(200);
      expect(setUps()).toHaveLength(1);
      expect(gemini.refreshes).toBe(1);
    } finally {
      await gemini.close();
    }
  });
});
