import { fileURLToPath } from "node:url";
import {
  credentialLabel,
  type FakePlanProviders,
  startFakePlanProviders,
} from "@planfirst/fake-upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binPath, runCli, tempDir } from "./cli-runner";

// The fake Copilot checked against the official client: the Copilot CLI, unmodified, pointed at
// the fake's GitHub API (its COPILOT_DEBUG_GITHUB_API_URL) and from there at the inference base
// the fake announces. What the CLI sends is what the real API takes, so the fake must serve it.

/** Where the CLI unpacks its bundled package (about 235 MB) once, kept across runs. */
const PACKAGE_CACHE = fileURLToPath(new URL("../node_modules/.cache/copilot-cli", import.meta.url));

let plans: FakePlanProviders;

beforeAll(async () => {
  plans = await startFakePlanProviders();
});

afterAll(async () => {
  await plans?.close();
});

describe("the official Copilot CLI against the fake Copilot", () => {
  it("prints the fake's answer: the GitHub token goes straight to inference with the CLI's own IDE headers, no exchange", async () => {
    const home = tempDir("planfirst-copilot-cli-");
    try {
      const exchanges = plans.copilot.exchanges;
      const result = await runCli(
        binPath("copilot"),
        [
          "-p",
          "say ok",
          "-s",
          "--allow-all-tools",
          "--no-auto-update",
          "--disable-client-telemetry",
          "--disable-builtin-mcps",
        ],
        {
          env: {
            HOME: home.path,
            NO_COLOR: "1",
            COPILOT_GITHUB_TOKEN: plans.copilot.githubToken,
            COPILOT_DEBUG_GITHUB_API_URL: plans.copilot.githubApiUrl,
            COPILOT_PKG_CACHE_HOME: PACKAGE_CACHE,
            COPILOT_AUTO_UPDATE: "false",
          },
          cwd: home.path,
          timeoutMs: 60_000,
        },
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout.trim()).toBe("ok");

      const github = credentialLabel(plans.copilot.githubToken);
      const user = plans.hits.find((hit) => hit.path === "/copilot_internal/user");
      expect(user).toMatchObject({ scheme: "Bearer", label: github });
      const models = plans.hits.find((hit) => hit.path === "/copilot/models");
      const chat = plans.hits.find((hit) => hit.path === "/copilot/chat/completions");
      for (const hit of [models, chat]) {
        expect(hit).toMatchObject({ scheme: "Bearer", label: github });
        expect(hit!.headers["editor-version"]).toMatch(/^copilot\/\d+\.\d+\.\d+$/);
        expect(hit!.headers["copilot-integration-id"]).toBe("copilot-developer-cli");
      }
      expect((chat!.body as { stream?: unknown }).stream).toBe(true);
      expect(plans.copilot.exchanges).toBe(exchanges);
    } finally {
      home.remove();
    }
  });
});
