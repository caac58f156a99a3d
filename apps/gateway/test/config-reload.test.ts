import { openAiRateLimited, startFakeGeminiCodeAssist } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { budgetOf, chat, ENV, status, useReloadBed } from "./config-reload-helpers";
import { type ConnectionInput, claudeUsagePayload, standardConfig } from "./fixtures";
import { waitFor } from "./harness";

// Reloading the config of a running gateway (SIGHUP, `planfirst reload`, the file watch all end
// in `reload()`): a real gateway on loopback started from a real config file in a temp dir,
// over a real SQLite file, in front of fake upstreams.

const { bed, extraConnection, withConnections, startFromFile } = useReloadBed();

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
