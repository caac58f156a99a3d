import { claudeRateLimited, claudeUnifiedHeaders, type Reply } from "@planfirst/fake-upstream";
import { expect } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import type { RequestRecord } from "../src/observability/request-log/request-record";
import type { GatewayStatus } from "../src/status/gateway-status";
import { type ConnectionInput, standardConfig } from "./fixtures";
import { getJson, type Harness, messagesBody, post, useTestBed, waitFor } from "./harness";

// What the tests of waiting for the plan (ladder.md §17) share: a Claude plan that runs out and
// comes back, the headers a request waits with, and the line, log and request log they read.

/** Request header: how long the request may wait for its plan, seconds. */
export const WAIT = "x-planfirst-max-wait";
/** Answer header: how long the request waited for its plan, ms. */
export const WAITED = "x-planfirst-waited-ms";

/** A keyless local model; a test sets `baseUrl` to the `local` fake's URL. */
export const KEYLESS: ConnectionInput = {
  id: "local",
  provider: "ollama",
  authType: "none",
  protocol: "openai",
  baseUrl: "",
  models: ["qwen2.5-coder:7b"],
  timeoutMs: 5_000,
};

/**
 * Registers the fakes of a test file of waiting for the plan (a Claude plan, two metered OpenAI
 * fakes and a local one, see {@link useTestBed}) and returns them with the helpers that use them.
 */
export function useWaitForPlanBed() {
  const bed = useTestBed({
    plan: "anthropic",
    router: "openai",
    pricey: "openai",
    local: "openai",
  });

  /** The standard config with `extra` on top, its subscriptionLadder merged. */
  function config(extra: Partial<GatewayConfigInput> = {}): GatewayConfigInput {
    const base = standardConfig(bed.fakes);
    return {
      ...base,
      ...extra,
      subscriptionLadder: { ...base.subscriptionLadder, ...extra.subscriptionLadder },
    };
  }

  /** The Claude plan answers its 5 h window spent, back in `inMs` (one upstream request). */
  async function exhaustPlan(harness: Harness, inMs: number): Promise<number> {
    const resetMs = harness.clock.now() + inMs;
    bed.fakes.plan.script([
      claudeRateLimited({ resetAtSec: resetMs / 1000, retryAfterSec: Math.ceil(inMs / 1000) }),
    ]);
    const refused = await strict(harness, { [WAIT]: "0" });
    expect(refused.status).toBe(429);
    await refused.text();
    return resetMs;
  }

  /** Requests the plan has answered so far. */
  const planHits = () => bed.fakes.plan.completionHits().length;

  return { bed, config, exhaustPlan, planHits };
}

/** POSTs a Messages request for `model` (default `auto/subscription`) with `headers`. */
export function strict(
  harness: Harness,
  headers: Record<string, string>,
  model = "auto/subscription",
) {
  return post(harness.url, "/v1/messages", messagesBody(model), headers);
}

/** What the Claude plan answers once its window is back: 1 % used, the next reset 5 h away. */
export function planBack(harness: Harness): Reply {
  return {
    headers: claudeUnifiedHeaders({
      fiveHour: { utilization: 0.01, resetAtSec: Math.floor(harness.clock.now() / 1000) + 18_000 },
    }),
  };
}

/** The gateway's `/v1/status`. */
export async function status(harness: Harness): Promise<GatewayStatus> {
  return getJson<GatewayStatus>(harness.url, "/v1/status");
}

/** How many requests `/v1/status` shows waiting for `connectionId`. */
export async function waitingFor(harness: Harness, connectionId: string): Promise<number> {
  const current = await status(harness);
  return current.connections.find((c) => c.id === connectionId)?.waiting?.requests ?? 0;
}

/** Waits (real time) until `count` requests are in the plan's line. */
export async function untilWaiting(harness: Harness, count: number, connectionId = "claude-plan") {
  await waitFor(
    () =>
      harness.server.gateway.context.dispatcher.waiting
        .rooms()
        .some((room) => room.connectionId === connectionId && room.waiting === count),
    { what: `${count} requests waiting for ${connectionId}` },
  );
}

/** The request log's record of the request that `match` picks, once it is written. */
export async function recordOf(
  harness: Harness,
  match: (record: RequestRecord) => boolean,
): Promise<RequestRecord> {
  let found: RequestRecord | undefined;
  await waitFor(
    async () => {
      const response = await fetch(`${harness.url}/v1/requests`);
      const records = ((await response.json()) as { data: RequestRecord[] }).data;
      found = records.find(match);
      return found !== undefined;
    },
    { what: "the request's record" },
  );
  return found!;
}

/** Log lines (JSON) with message `msg`, parsed. */
export function logLines(harness: Harness, msg: string): Record<string, unknown>[] {
  return harness.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

/** Reads a response body as text while it streams. */
export function streamText(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let done = false;
  const pump = (async () => {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    done = true;
  })();
  return {
    text: () => text,
    async until(condition: (text: string) => boolean, what: string) {
      await waitFor(() => done || condition(text), { what });
      expect(condition(text)).toBe(true);
    },
    async end() {
      await pump;
      return text;
    },
  };
}
