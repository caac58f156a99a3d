import { claudeRateLimited } from "@planfirst/fake-upstream";
import { afterEach, describe, expect, it } from "vitest";
import { pinKeyOf, sessionHash } from "../src/routing/session-key";
import { binPath, runCli, tempDir } from "./cli-runner";
import { anthropicText, anthropicToolCall, carriesToolResult, chatText } from "./client-streams";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { useTestBed } from "./harness";

// Claude Code 2.1.48 itself (`claude -p`), unchanged, against the gateway in front of fakes.

const bed = useTestBed(STANDARD_FAKES);
const KEYED = { server: { apiKeys: ["env:CLIENT_KEY"] } };
const MODEL = "claude-sonnet-4-5";
const temps: { remove(): void }[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.remove();
});

async function claude(url: string, prompt: string, model: string, extraArgs: string[] = []) {
  const home = tempDir("planfirst-claude-home-");
  const cwd = tempDir("planfirst-claude-cwd-");
  temps.push(home, cwd);
  return runCli(binPath("claude"), ["-p", prompt, "--model", model, ...extraArgs], {
    cwd: cwd.path,
    timeoutMs: 60_000,
    env: {
      HOME: home.path,
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: TEST_ENV.CLIENT_KEY,
      // Its background model calls (titles, summaries) go to the same routed model.
      ANTHROPIC_SMALL_FAST_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
    },
  });
}

describe("Claude Code 2.1.48 through the gateway", () => {
  it("answers a plain prompt from the plan, its headers, beta list and identity reaching the upstream", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes, KEYED), env: TEST_ENV });
    bed.fakes.plan.script(() => anthropicText(MODEL, "pong from the plan"));
    const run = await claude(harness.url, "say pong", MODEL);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("pong from the plan");
    const hit = bed.fakes.plan.completionHits().find((h) => h.stream);
    expect(hit).toBeDefined();
    expect(hit!.headers["user-agent"]).toMatch(/^claude-cli\/2\.1\.48/);
    const betas = hit!.headers["anthropic-beta"]!.split(",");
    expect(betas).toContain("claude-code-20250219");
    expect(betas).toContain("oauth-2025-04-20");
    expect(new Set(betas).size).toBe(betas.length);
    expect(hit!.headers["x-app"]).toBe("cli");
    // The client's own system prompt reaches the plan as it sent it.
    expect(JSON.stringify((hit!.body as { system: unknown }).system)).toContain("Claude Code");
    // Claude Code 2.1.48 names its session in metadata.user_id (`…_session_<uuid>`), not in a
    // header: the session is recognised by it and pinned, by its hash, where it was served.
    const userId = (hit!.body as { metadata?: { user_id?: string } }).metadata?.user_id;
    expect(userId).toMatch(/_session_[0-9a-f-]{36}$/);
    const pin = harness.server.gateway.deps.sessions?.pinOf(
      pinKeyOf(sessionHash("CLIENT_KEY", "anthropic-user", userId!), MODEL),
    );
    expect(pin?.connectionId).toBe("claude-plan");
  }, 90_000);

  it("runs one tool round trip: the plan asks for Bash, Claude Code runs it and sends the result back", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes, KEYED), env: TEST_ENV });
    bed.fakes.plan.script((request) =>
      carriesToolResult(request.body)
        ? anthropicText(MODEL, "the tool said done")
        : anthropicToolCall(MODEL, "Bash", { command: "echo tool-ran-here", description: "echo" }),
    );
    const run = await claude(harness.url, "run the echo", MODEL, [
      "--allowedTools",
      "Bash(echo:*)",
    ]);
    expect(run.stdout).toContain("the tool said done");
    const followUp = bed.fakes.plan.completionHits().find((h) => carriesToolResult(h.body));
    expect(JSON.stringify(followUp?.body)).toContain("tool-ran-here");
  }, 90_000);

  it("on auto/thrifty escalates from an exhausted plan (Claude unified 429) to an OpenAI-protocol rung", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes, KEYED), env: TEST_ENV });
    const resetAtSec = Math.floor((harness.clock.now() + 3_600_000) / 1000);
    bed.fakes.plan.script(() => claudeRateLimited({ resetAtSec, retryAfterSec: 3600 }));
    bed.fakes.router.script(() => chatText("qwen/qwen3-coder", "pong from the cheap rung"));
    const run = await claude(harness.url, "say pong", "auto/thrifty");
    expect(run.stdout).toContain("pong from the cheap rung");
    const sent = bed.fakes.router.completionHits().find((h) => h.stream)?.body as {
      messages: { role: string }[];
      tools?: unknown[];
    };
    expect(sent.messages[0]!.role).toBe("system");
    expect(sent.tools?.length ?? 0).toBeGreaterThan(0);
    expect(bed.fakes.plan.completionHits().length).toBeGreaterThan(0);
  }, 90_000);
});
