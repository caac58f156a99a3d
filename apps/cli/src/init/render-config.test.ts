import { parseConfig } from "@planfirst/gateway";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { CONNECTION_PRESETS } from "./connection-presets";
import { type InitAnswers, renderConfig } from "./render-config";

const answers: InitAnswers = {
  connections: CONNECTION_PRESETS,
  host: "127.0.0.1",
  port: 4141,
  storage: "redis",
  redisUrl: "redis://127.0.0.1:6379/2",
  cheapBudgetUsd: 2.5,
  premiumBudgetUsd: 0,
  budgetWindow: "month",
  apiKeyEnv: "PLANFIRST_API_KEY",
};

describe("renderConfig", () => {
  it("writes a config the gateway's own schema accepts, with every preset", () => {
    const config = parseConfig(parseYaml(renderConfig(answers)));
    expect(config.connections.map((c) => c.id)).toEqual(CONNECTION_PRESETS.map((p) => p.id));
    expect(config.storage).toMatchObject({ driver: "redis", url: "redis://127.0.0.1:6379/2" });
    expect(config.server.apiKeys).toEqual(["env:PLANFIRST_API_KEY"]);
    expect(config.subscriptionLadder).toMatchObject({
      rungBudgetUsd: { cheap: 2.5, premium: 0 },
      budgetWindow: "month",
    });
  });

  it("keeps model ids that YAML would misread (colons, yes/no) as strings", () => {
    const text = renderConfig({
      ...answers,
      connections: [{ ...CONNECTION_PRESETS[0]!, models: ["qwen2.5-coder:7b", "yes", "1.5"] }],
    });
    expect(parseYaml(text).connections[0].models).toEqual(["qwen2.5-coder:7b", "yes", "1.5"]);
  });

  it("credentials are env: references or stored logins only, and every section is explained", () => {
    const text = renderConfig(answers);
    const lines = text.split("\n").filter((l) => l.includes("credential:"));
    expect(lines.some((line) => line.includes("login:"))).toBe(true);
    for (const line of lines) {
      expect(line).toMatch(/credential: (env:[A-Z_]+|\{ login: [a-z-]+ \})$/);
    }
    for (const section of [
      "server:",
      "storage:",
      "connections:",
      "catalog:",
      "subscriptionLadder:",
    ]) {
      const at = text.indexOf(`\n${section}`);
      expect(text.slice(0, at).trimEnd().split("\n").at(-1)).toMatch(/^#/);
    }
  });
});
