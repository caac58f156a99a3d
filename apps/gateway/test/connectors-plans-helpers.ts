import {
  type FakePlanProviders,
  type FakeUpstream,
  type PlanHit,
  startFakePlanProviders,
  startFakeUpstream,
} from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import type { ConnectionInput } from "./fixtures";
import { chatBody, createClock, type Harness, post, startHarness, type TestClock } from "./harness";

// What the plan connector tests share: the plan providers' fakes on loopback and a gateway over a
// real SQLite file in front of them, with a metered OpenAI-compatible fallback on the cheap rung.

/** One hour, ms. */
export const hour = 3_600_000;

/** Operator entry making a plan a verified hard stop (the bundled catalog says `unknown`). */
function hardStop(provider: string) {
  return {
    provider,
    authType: "oauth",
    billing: "subscription" as const,
    overage: "hard-stop" as const,
    reason: `test: paid overage is off on this ${provider} account, so the plan stops at its limit`,
    sources: ["https://example.invalid/terms"],
    reviewed: "2026-11-30",
  };
}

const METERED_KEY = "sk-metered-secret-value-0009";

/** The plan fakes, the metered fallback and the clock of a test file, and gateways over them. */
export interface PlanBed {
  /** The clock of the fakes and the gateways, set to 2026-11-30T10:00:00Z before each test. */
  readonly clock: TestClock;
  /** The plan providers' fakes, their knobs reset before each test. */
  readonly plans: FakePlanProviders;
  /** The metered OpenAI-compatible fallback on the cheap rung. */
  readonly metered: FakeUpstream;
  /**
   * Starts a gateway (closed after the test) with `connections`, the metered fallback and a
   * catalog entry making each of `providers` a verified hard stop.
   */
  gateway(
    connections: NonNullable<GatewayConfigInput["connections"]>,
    env: Record<string, string>,
    providers: string[],
  ): Promise<Harness>;
  /** The POSTs the plan fakes received on `path`. */
  completionHits(path: string): PlanHit[];
  /** A z.ai coding plan connection on its fake, its key read from `ZAI_KEY`. */
  zaiConnection(): ConnectionInput;
}

/**
 * Registers the hooks of a plan connector test file: the plan fakes and the metered fallback
 * start before its first test and close after its last; before each test the clock and the
 * fakes' knobs are reset, and after each the gateways it started are closed.
 */
export function usePlanBed(): PlanBed {
  let clock: TestClock;
  let plans: FakePlanProviders;
  let metered: FakeUpstream;
  let running: Harness[] = [];

  beforeAll(async () => {
    clock = createClock();
    plans = await startFakePlanProviders({ now: () => clock.now(), accessTokenTtlSec: 3600 });
    metered = await startFakeUpstream({ protocol: "openai", name: "metered" });
  });

  afterAll(async () => {
    await Promise.all([plans.close(), metered.close()]);
  });

  beforeEach(() => {
    clock.set(Date.parse("2026-11-30T10:00:00Z"));
    plans.hits.length = 0;
    plans.codex.exhaustedUntilSec = null;
    plans.codex.hasCredits = false;
    plans.codex.failRefreshes(false);
    plans.copilot.exhausted = false;
    plans.zai.exhaustedUntilBeijing = null;
    plans.kimi.failRefreshes(false);
  });

  afterEach(async () => {
    await Promise.all(running.map((harness) => harness.close()));
    running = [];
    metered.reset();
  });

  function meteredConnection() {
    return {
      id: "metered",
      provider: "openrouter",
      authType: "apikey",
      protocol: "openai" as const,
      baseUrl: metered.url,
      usageUrl: `${metered.url}/api/v1/key`,
      credential: "env:METERED_KEY",
      models: ["qwen/qwen3-coder"],
      timeoutMs: 5_000,
    };
  }

  async function gateway(
    connections: NonNullable<GatewayConfigInput["connections"]>,
    env: Record<string, string>,
    providers: string[],
  ): Promise<Harness> {
    const harness = await startHarness({
      clock,
      env: { ...env, METERED_KEY },
      config: {
        connections: [...connections, meteredConnection()],
        catalog: { connections: providers.map(hardStop) },
        subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
      },
    });
    running.push(harness);
    return harness;
  }

  function completionHits(path: string) {
    return plans.hits.filter((hit) => hit.method === "POST" && hit.path === path);
  }

  function zaiConnection() {
    return {
      id: "zai",
      provider: "zai",
      authType: "apikey",
      protocol: "openai" as const,
      baseUrl: plans.zai.baseUrl,
      usageUrl: plans.zai.usageUrl,
      credential: "env:ZAI_KEY",
      models: ["glm-4.6"],
      timeoutMs: 5_000,
    };
  }

  return {
    get clock() {
      return clock;
    },
    get plans() {
      return plans;
    },
    get metered() {
      return metered;
    },
    gateway,
    completionHits,
    zaiConnection,
  };
}

/** POSTs a chat request for `model` and reads the answer, with the rung that served it. */
export async function served(
  harness: Harness,
  model: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const response = await post(harness.url, "/v1/chat/completions", chatBody(model, extra), headers);
  const text = await response.text();
  return { response, text, rung: response.headers.get("x-planfirst-rung") };
}
