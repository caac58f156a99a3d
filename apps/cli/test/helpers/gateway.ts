import {
  claudeUnifiedHeaders,
  type FakeUpstream,
  startFakeUpstream,
} from "@planfirst/fake-upstream";
import { createLogger, parseConfig, type RunningServer, startServer } from "@planfirst/gateway";

/** Secrets the test gateway reads; tests assert none of them is ever printed. */
export const TEST_SECRETS = {
  TEST_CLAUDE_TOKEN: "sk-ant-oat-test-claude-plan-secret-0001",
  TEST_OPENROUTER_KEY: "sk-or-test-metered-secret-0002",
  TEST_PLANFIRST_KEY: "pf-client-key-secret-0003",
} as const;

/** A gateway on loopback in front of fake upstreams: a Claude plan and a metered OpenRouter key. */
export interface TestGateway {
  server: RunningServer;
  url: string;
  claude: FakeUpstream;
  openrouter: FakeUpstream;
  /** Sends one chat completion through the gateway (with the client key). */
  chat(model: string): Promise<Response>;
  close(): Promise<void>;
}

/** The test config: operator catalog entries, so nothing depends on the bundled data's values. */
export function testConfigDocument(claudeUrl: string, openrouterUrl: string) {
  return {
    server: {
      apiKeys: [{ key: "env:TEST_PLANFIRST_KEY", id: "TEST_PLANFIRST_KEY", budgetUsd: 2 }],
    },
    storage: { driver: "memory" },
    connections: [
      {
        id: "claude-max",
        provider: "claude",
        authType: "oauth",
        protocol: "anthropic",
        baseUrl: claudeUrl,
        credential: "env:TEST_CLAUDE_TOKEN",
        models: ["claude-sonnet-4-5"],
      },
      {
        id: "openrouter",
        provider: "openrouter",
        authType: "apikey",
        protocol: "openai",
        baseUrl: openrouterUrl,
        credential: "env:TEST_OPENROUTER_KEY",
        models: ["qwen/qwen3-coder"],
      },
    ],
    catalog: {
      connections: [
        {
          provider: "claude",
          authType: "oauth",
          billing: "subscription",
          overage: "hard-stop",
          reason: "test plan that stops at its limit",
          sources: ["https://example.com/terms"],
          reviewed: "2026-11-01",
        },
      ],
      models: [
        {
          provider: "openrouter",
          model: "qwen/qwen3-coder",
          inputPerMTok: 0.2,
          outputPerMTok: 0.8,
        },
      ],
    },
    categories: { coding: ["claude-sonnet-4-5", "qwen/qwen3-coder"] },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5, premium: 0 }, budgetWindow: "day" },
  };
}

/**
 * Starts fake upstreams and the gateway (its own `startServer`, port 0, memory store, pollers
 * off). The Claude upstream answers with unified quota headers: `remainingPercent` left in the
 * 5-hour window, resetting `resetInMs` from now.
 */
export async function startTestGateway(options: {
  remainingPercent: number;
  resetInMs: number;
}): Promise<TestGateway> {
  const claude = await startFakeUpstream({ protocol: "anthropic", name: "claude" });
  const openrouter = await startFakeUpstream({ protocol: "openai", name: "openrouter" });
  claude.script(() => ({
    headers: claudeUnifiedHeaders({
      fiveHour: {
        utilization: (100 - options.remainingPercent) / 100,
        resetAtSec: Math.floor((Date.now() + options.resetInMs) / 1000),
      },
    }),
  }));
  const server = await startServer({
    config: parseConfig(testConfigDocument(claude.url, openrouter.url)),
    port: 0,
    host: "127.0.0.1",
    env: { ...TEST_SECRETS },
    logger: createLogger({ level: "silent" }),
    print: () => {},
    pollUsage: false,
  });
  return {
    server,
    url: server.url,
    claude,
    openrouter,
    chat: (model) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TEST_SECRETS.TEST_PLANFIRST_KEY}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      }),
    async close() {
      await server.close();
      await claude.close();
      await openrouter.close();
    },
  };
}

/** Fails the test if any test secret appears in `text`. */
export function expectNoSecret(text: string): void {
  for (const [name, value] of Object.entries(TEST_SECRETS)) {
    if (text.includes(value)) throw new Error(`secret ${name} was printed`);
  }
}
