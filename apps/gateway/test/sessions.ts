import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import type { FakeUpstream, Hit } from "@planfirst/fake-upstream";
import { expect } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import { claudeUsagePayload, TEST_ENV } from "./fixtures";
import { CLAUDE_HARD_STOP_ENTRY, chatBody, type Harness, post, REDIS_URL } from "./harness";

// What the session tests (ladder.md §16) share: two plan logins and one cheap model through two
// keys, conversations turn by turn, and how an answer says where its session went.

/** The fake upstreams behind {@link sessionConfig}. */
export const SESSION_FAKES = {
  planA: "anthropic",
  planB: "anthropic",
  cheap1: "openai",
  cheap2: "openai",
} as const;

/** The started fakes of {@link SESSION_FAKES}. */
export type SessionFakes = Record<keyof typeof SESSION_FAKES, FakeUpstream>;

/** The plan model both logins serve. */
export const SESSION_MODEL = "claude-sonnet-4-5";

/** The variables {@link sessionConfig} reads. */
export const SESSION_ENV = { ...TEST_ENV, PLAN_TOKEN_B: "sk-ant-oat01-second-plan-secret-444" };

export const HOUR = 3_600_000;

/** Two plan logins (rung 0) and one cheap model through two keys (rung 3, same price). */
export function sessionConfig(
  fakes: SessionFakes,
  overrides: Partial<GatewayConfigInput> = {},
): GatewayConfigInput {
  const plan = (id: string, fake: FakeUpstream, credential: string) => ({
    id,
    provider: "claude",
    authType: "oauth",
    protocol: "anthropic" as const,
    baseUrl: fake.url,
    credential,
    models: [SESSION_MODEL],
  });
  const cheap = (id: string, fake: FakeUpstream) => ({
    id,
    provider: "openrouter",
    authType: "apikey",
    protocol: "openai" as const,
    baseUrl: fake.url,
    credential: "env:ROUTER_KEY",
    models: ["vendor/coder"],
  });
  return {
    connections: [
      plan("plan-a", fakes.planA, "env:PLAN_TOKEN"),
      plan("plan-b", fakes.planB, "env:PLAN_TOKEN_B"),
      cheap("cheap-1", fakes.cheap1),
      cheap("cheap-2", fakes.cheap2),
    ],
    catalog: {
      connections: [CLAUDE_HARD_STOP_ENTRY],
      models: [
        { provider: "openrouter", model: "vendor/coder", inputPerMTok: 0.1, outputPerMTok: 0.3 },
      ],
    },
    categories: { paid: ["vendor/*"] },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
    ...overrides,
  };
}

/** Turn `n` (from 1) of a chat conversation about `topic`: the whole history, as clients send it. */
export function turn(model: string, topic: string, n: number, extra: Record<string, unknown> = {}) {
  const messages: { role: string; content: string }[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `Let us work on ${topic}.` },
  ];
  for (let i = 1; i < n; i++) {
    messages.push({ role: "assistant", content: `step ${i} done` });
    messages.push({ role: "user", content: `go on with step ${i + 1}` });
  }
  return chatBody(model, { messages, ...extra });
}

/** Where an answer went and how its session was placed. */
export interface Answer {
  connection: string | null;
  session: string | null;
  attempts: string | null;
}

/** POSTs a chat completion, expects a 200 and reads the receipt and session headers. */
export async function send(
  harness: Harness,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await post(harness.url, "/v1/chat/completions", body, headers);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return {
    connection: response.headers.get("x-planfirst-connection"),
    session: response.headers.get("x-planfirst-session"),
    attempts: response.headers.get("x-planfirst-attempts"),
  };
}

/** The session hash of an answer's `x-planfirst-session`. */
export function sessionOf(answer: Answer): string {
  return answer.session?.slice(0, 16) ?? "(no session header)";
}

/** The `affinity=…[; reason=…]` part of an `x-planfirst-session` value. */
export function affinity(answer: Answer): string {
  return answer.session?.replace(/^[0-9a-f]{16}; /, "") ?? "(no session header)";
}

/** Both plans at 50 % used, their 5-hour windows resetting `resetInA` and `resetInB` from now. */
export async function planReadings(
  harness: Harness,
  fakes: SessionFakes,
  resetInA: number,
  resetInB: number,
): Promise<void> {
  const now = harness.clock.now();
  fakes.planA.usage(claudeUsagePayload(50, now + resetInA), { endpoint: "claude" });
  fakes.planB.usage(claudeUsagePayload(50, now + resetInB), { endpoint: "claude" });
  await harness.server.gateway.refreshUsage();
}

/** The body of the last completion request `fake` received. */
export function lastBody(fake: FakeUpstream): Record<string, unknown> {
  const hit: Hit | undefined = fake.completionHits().at(-1);
  if (!hit) throw new Error("the fake received no completion request");
  return hit.body as Record<string, unknown>;
}

/**
 * A TCP relay to the test Redis that can be cut: Redis then looks down to whoever used it, until
 * `restore` listens on the same port again.
 */
export async function redisRelay(): Promise<{
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
}> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
    restore() {
      return new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
  };
}
