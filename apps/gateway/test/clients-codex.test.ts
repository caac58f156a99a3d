import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { binPath, runCli, tempDir } from "./cli-runner";
import { carriesToolResult, chatText, chatToolCall } from "./client-streams";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { refusedUpgrades, useTestBed } from "./harness";

// Codex CLI 0.171.0 itself (`codex exec`), unchanged, against the gateway in front of a chat
// completions fake: with planfirst as a custom Responses provider (no `supports_websockets` line:
// 0.171.0 then speaks HTTP from the start), and through its built-in OpenAI provider pointed at
// planfirst, which opens a Responses WebSocket first and is sent to HTTP by the gateway's 426.

const bed = useTestBed(STANDARD_FAKES);
const KEYED = { server: { apiKeys: ["env:CLIENT_KEY"] } };
const MODEL = "qwen/qwen3-coder";
const temps: { remove(): void }[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.remove();
});

/**
 * Runs `codex exec` against the gateway at `url`: through a custom provider entry as the README
 * writes it (`custom`), or through Codex's built-in OpenAI provider with only its base URL moved
 * to planfirst (`built-in`; `codex exec` reads its key from `CODEX_API_KEY`).
 */
async function codex(
  url: string,
  prompt: string,
  model: string,
  provider: "custom" | "built-in" = "custom",
) {
  const home = tempDir("planfirst-codex-home-");
  const codexHome = tempDir("planfirst-codex-config-");
  const cwd = tempDir("planfirst-codex-cwd-");
  temps.push(home, codexHome, cwd);
  const config =
    provider === "custom"
      ? [
          `model = "${model}"`,
          `model_provider = "planfirst"`,
          "",
          "[model_providers.planfirst]",
          `name = "planfirst"`,
          `base_url = "${url}/v1"`,
          `env_key = "PLANFIRST_API_KEY"`,
          `wire_api = "responses"`,
        ]
      : [`model = "${model}"`, `openai_base_url = "${url}/v1"`];
  writeFileSync(join(codexHome.path, "config.toml"), `${config.join("\n")}\n`);
  return runCli(binPath("codex"), ["exec", "--skip-git-repo-check", prompt], {
    cwd: cwd.path,
    timeoutMs: 60_000,
    env: {
      HOME: home.path,
      CODEX_HOME: codexHome.path,
      PLANFIRST_API_KEY: TEST_ENV.CLIENT_KEY,
      CODEX_API_KEY: TEST_ENV.CLIENT_KEY,
    },
  });
}

describe("Codex CLI 0.171.0 through the gateway", () => {
  it("answers a plain prompt over POST /v1/responses from a chat completions upstream", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes, KEYED), env: TEST_ENV });
    bed.fakes.router.script(() => chatText(MODEL, "pong from the router"));
    const run = await codex(harness.url, "say pong", MODEL);
    expect(run.stdout).toContain("pong from the router");
    // An unmodified provider entry: the answer came over HTTP, with no WebSocket tried first.
    expect(refusedUpgrades(harness.logs)).toBe(0);
    expect(bed.fakes.router.completionHits()).toHaveLength(1);
    const hit = bed.fakes.router.completionHits().find((h) => h.stream);
    const sent = hit?.body as {
      messages: { role: string }[];
      tools: { function: { name: string } }[];
    };
    // Its developer instructions and its own tools reach the upstream; only hosted tools are left out.
    expect(sent.messages.some((m) => m.role === "system" || m.role === "developer")).toBe(true);
    expect(sent.tools.map((t) => t.function.name)).toContain("exec_command");
  }, 90_000);

  it("runs one tool round trip: the upstream asks for exec_command, Codex runs it and sends the output back", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes, KEYED), env: TEST_ENV });
    bed.fakes.router.script((request) =>
      carriesToolResult(request.body)
        ? chatText(MODEL, "the command has run")
        : chatToolCall(MODEL, "exec_command", { cmd: "echo tool-ran-here" }),
    );
    const run = await codex(harness.url, "run echo", MODEL);
    expect(run.stdout).toContain("the command has run");
    const followUp = bed.fakes.router.completionHits().find((h) => carriesToolResult(h.body));
    expect(followUp).toBeDefined();
    const messages = (followUp!.body as { messages: { role: string; tool_call_id?: string }[] })
      .messages;
    const result = messages.find((m) => m.role === "tool");
    expect(result?.tool_call_id).toBe("call_FakeRoundTrip01");
    expect(JSON.stringify(result)).toContain("tool-ran-here");
    const call = messages.find(
      (m) => m.role === "assistant" && JSON.stringify(m).includes("exec_command"),
    );
    expect(call).toBeDefined();
  }, 90_000);

  it("through its built-in OpenAI provider, falls back from its WebSocket to HTTP on the first 426 and stays there", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes, KEYED), env: TEST_ENV });
    bed.fakes.router.script((request) =>
      carriesToolResult(request.body)
        ? chatText(MODEL, "the command has run")
        : chatToolCall(MODEL, "exec_command", { cmd: "echo tool-ran-here" }),
    );
    const run = await codex(harness.url, "run echo", MODEL, "built-in");
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain("the command has run");
    // One handshake, refused once; then both requests of the turn over HTTP. A refusal Codex
    // does not fall back on at once (a 404) shows here as seven handshakes.
    expect(refusedUpgrades(harness.logs)).toBe(1);
    expect(bed.fakes.router.completionHits()).toHaveLength(2);
    expect(run.stderr).not.toContain("Reconnecting");
  }, 90_000);
});
