import {
  CODEX_FAKE_CLIENT_ID,
  type FakePlanProviders,
  type FakeUpstream,
} from "@planfirst/fake-upstream";
import type { GatewayConfigInput } from "../src/config/schema";
import { CLAUDE_HARD_STOP_ENTRY } from "./harness";

/** Credentials of the standard test connections (distinct, so hits can be told apart). */
export const TEST_ENV = {
  PLAN_TOKEN: "sk-ant-oat01-plan-secret-value-000",
  ROUTER_KEY: "sk-or-v1-router-secret-value-111",
  PREMIUM_KEY: "sk-or-v1-premium-secret-value-222",
  CLIENT_KEY: "pf-client-secret-value-333",
};

/** The fake upstreams behind {@link standardConfig}: the plan, the cheap and the premium model. */
export const STANDARD_FAKES = { plan: "anthropic", router: "openai", pricey: "openai" } as const;

/**
 * The standard ladder: a Claude plan (rung 0, hard-stop by operator entry), a cheap OpenRouter
 * model (rung 3) and a premium OpenRouter model (rung 4).
 */
export function standardConfig(
  fakes: { plan: FakeUpstream; router: FakeUpstream; pricey: FakeUpstream },
  overrides: Partial<GatewayConfigInput> = {},
): GatewayConfigInput {
  return {
    connections: [
      {
        id: "claude-plan",
        provider: "claude",
        authType: "oauth",
        protocol: "anthropic",
        baseUrl: fakes.plan.url,
        credential: "env:PLAN_TOKEN",
        models: ["claude-sonnet-4-5"],
        timeoutMs: 5_000,
      },
      routerConnection(fakes.router.url, { timeoutMs: 5_000 }),
      {
        id: "openrouter-premium",
        provider: "openrouter",
        authType: "apikey",
        protocol: "openai",
        baseUrl: fakes.pricey.url,
        credential: "env:PREMIUM_KEY",
        models: ["anthropic/claude-sonnet-4.5"],
        timeoutMs: 5_000,
      },
    ],
    catalog: { connections: [CLAUDE_HARD_STOP_ENTRY] },
    categories: { coding: ["claude-sonnet-4-5", "qwen/*"] },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    ...overrides,
  };
}

/**
 * An OpenRouter key (`env:ROUTER_KEY`) on the fake at `baseUrl`, serving `qwen/qwen3-coder`: the
 * cheap rung's paid connection of most tests. `fields` replace any of its own.
 */
export function routerConnection(baseUrl: string, fields: Partial<ConnectionInput> = {}) {
  return {
    id: "openrouter",
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl,
    credential: "env:ROUTER_KEY",
    models: ["qwen/qwen3-coder"],
    ...fields,
  } satisfies ConnectionInput;
}

/** An Anthropic API key (`env:ANTHROPIC_KEY`) on the fake at `baseUrl`, serving `claude-haiku-4-5`. */
export function anthropicKeyConnection(baseUrl: string, fields: Partial<ConnectionInput> = {}) {
  return {
    id: "anthropic-api",
    provider: "anthropic",
    authType: "apikey",
    protocol: "anthropic" as const,
    baseUrl,
    credential: "env:ANTHROPIC_KEY",
    models: ["claude-haiku-4-5"],
    ...fields,
  } satisfies ConnectionInput;
}

/** A Claude OAuth usage payload: `usedPercent` of the 5-hour window, reset at `resetAtMs`. */
export function claudeUsagePayload(usedPercent: number, resetAtMs: number) {
  return {
    five_hour: { utilization: usedPercent, resets_at: new Date(resetAtMs).toISOString() },
    seven_day: {
      utilization: 10,
      resets_at: new Date(resetAtMs + 5 * 86_400_000).toISOString(),
    },
  };
}

/** One connection of a gateway config, as written. */
export type ConnectionInput = NonNullable<GatewayConfigInput["connections"]>[number];

/**
 * A ChatGPT plan connection (`chatgpt`, model `gpt-5-codex`) on the fake Codex backend, its login
 * read from the variables {@link codexPlanEnv} sets; `overrides` replace whole fields (a `login:`
 * credential, a timeout).
 */
export function codexPlanConnection(
  plans: FakePlanProviders,
  overrides: Partial<ConnectionInput> = {},
): ConnectionInput {
  return {
    id: "chatgpt",
    provider: "codex",
    authType: "oauth",
    protocol: "openai-responses",
    baseUrl: plans.codex.baseUrl,
    credential: {
      refreshToken: "env:CODEX_REFRESH",
      accessToken: "env:CODEX_ACCESS",
      accountId: "env:CODEX_ACCOUNT",
      tokenUrl: plans.codex.tokenUrl,
      clientId: CODEX_FAKE_CLIENT_ID,
    },
    models: ["gpt-5-codex"],
    ...overrides,
  };
}

/** The variables {@link codexPlanConnection} reads, holding a fresh login the fake issues. */
export function codexPlanEnv(plans: FakePlanProviders) {
  const login = plans.codex.issueLogin();
  return {
    CODEX_REFRESH: login.refreshToken,
    CODEX_ACCESS: login.accessToken,
    CODEX_ACCOUNT: plans.codex.accountId,
  };
}
