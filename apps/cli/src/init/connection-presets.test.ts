import { createConnectorRegistry } from "@planfirst/gateway";
import { describe, expect, it } from "vitest";
import { CONNECTION_PRESETS } from "./connection-presets";

describe("init connection presets", () => {
  it("name a connector the gateway ships, and offer every plan connector", () => {
    const registry = createConnectorRegistry();
    for (const preset of CONNECTION_PRESETS) {
      expect(registry.has(preset.provider, preset.authType), preset.id).toBe(true);
    }
    const offered = new Set(CONNECTION_PRESETS.map((preset) => preset.provider));
    for (const plan of ["claude", "codex", "github-copilot", "zai", "kimi"]) {
      expect(offered.has(plan), plan).toBe(true);
    }
  });

  it("give a plan login a stored login, never a literal secret", () => {
    for (const preset of CONNECTION_PRESETS) {
      if (preset.authType === "none") continue;
      expect(Boolean(preset.credentialEnv) !== Boolean(preset.credentialLogin), preset.id).toBe(
        true,
      );
    }
  });
});
