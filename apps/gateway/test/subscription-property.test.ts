import {
  claudeRateLimited,
  claudeUnifiedHeaders,
  type Reply,
  serverError,
} from "@planfirst/fake-upstream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { claudeUsagePayload } from "./fixtures";
import {
  CLAUDE_HARD_STOP_ENTRY,
  chatBody,
  messagesBody,
  post,
  startHarness,
  useTestBed,
} from "./harness";

const bed = useTestBed({
  plan: "anthropic",
  softPlan: "openai",
  metered: "openai",
  local: "openai",
});

const behaviour = fc.constantFrom("ok", "ok-low", "429", "500", "stream-cut");

function replyFor(kind: string, protocol: "openai" | "anthropic", nowMs: number): Reply {
  const resetAtSec = Math.floor((nowMs + 3_600_000) / 1000);
  switch (kind) {
    case "ok":
      return { headers: claudeUnifiedHeaders({ fiveHour: { utilization: 0.3, resetAtSec } }) };
    case "ok-low":
      return { headers: claudeUnifiedHeaders({ fiveHour: { utilization: 0.99, resetAtSec } }) };
    case "429":
      return claudeRateLimited({ resetAtSec, retryAfterSec: 3600 });
    case "500":
      return serverError(protocol);
    default:
      return { stream: { chunks: ["a", "b", "c"], cutAfter: 1 } };
  }
}

describe("SUB2/SUB6 property: auto/subscription only ever reaches verified hard-stop plans", () => {
  it("no auto/subscription request reaches any other connection, whatever the upstreams do", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          planUsedPercent: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
          behaviours: fc.array(fc.tuple(behaviour, behaviour, behaviour, behaviour), {
            minLength: 1,
            maxLength: 6,
          }),
          requests: fc.array(
            fc.record({
              id: fc.constantFrom("auto/subscription", "auto/thrifty", "auto/coding:subscription"),
              route: fc.constantFrom("chat", "messages"),
              stream: fc.boolean(),
            }),
            { minLength: 1, maxLength: 6 },
          ),
        }),
        async ({ planUsedPercent, behaviours, requests }) => {
          for (const fake of Object.values(bed.fakes)) fake.reset();
          const harness = await startHarness({
            storage: { driver: "memory" },
            env: { PLAN: "plan-cred", SOFT: "soft-cred", METERED: "metered-cred" },
            config: {
              connections: [
                {
                  id: "plan",
                  provider: "claude",
                  authType: "oauth",
                  protocol: "anthropic",
                  baseUrl: bed.fakes.plan.url,
                  credential: "env:PLAN",
                  models: ["claude-sonnet-4-5"],
                },
                {
                  id: "soft-plan",
                  provider: "github-copilot",
                  authType: "oauth",
                  protocol: "openai",
                  baseUrl: bed.fakes.softPlan.url,
                  credential: "env:SOFT",
                  models: ["gpt-4.1"],
                },
                {
                  id: "metered",
                  provider: "openrouter",
                  authType: "apikey",
                  protocol: "openai",
                  baseUrl: bed.fakes.metered.url,
                  credential: "env:METERED",
                  models: ["qwen/qwen3-coder"],
                },
                {
                  id: "local",
                  provider: "ollama",
                  authType: "none",
                  protocol: "openai",
                  baseUrl: bed.fakes.local.url,
                  models: ["qwen2.5-coder:7b"],
                },
              ],
              catalog: { connections: [CLAUDE_HARD_STOP_ENTRY] },
              categories: { coding: ["*"] },
            },
          });
          try {
            const now = harness.clock.now();
            if (planUsedPercent !== undefined) {
              bed.fakes.plan.usage(claudeUsagePayload(planUsedPercent, now + 3_600_000), {
                endpoint: "claude",
              });
              await harness.server.gateway.refreshUsage();
            }
            let step = 0;
            const scriptOf = (index: number, protocol: "openai" | "anthropic") => () => {
              const row = behaviours[step % behaviours.length]!;
              return replyFor(row[index]!, protocol, harness.clock.now());
            };
            bed.fakes.plan.script(scriptOf(0, "anthropic"));
            bed.fakes.softPlan.script(scriptOf(1, "openai"));
            bed.fakes.metered.script(scriptOf(2, "openai"));
            bed.fakes.local.script(scriptOf(3, "openai"));
            const others = [bed.fakes.softPlan, bed.fakes.metered, bed.fakes.local];
            for (const request of requests) {
              step++;
              const before = others.map((fake) => fake.completionHits().length);
              const body =
                request.route === "chat"
                  ? chatBody(request.id, { stream: request.stream })
                  : messagesBody(request.id, { stream: request.stream });
              const response = await post(
                harness.url,
                request.route === "chat" ? "/v1/chat/completions" : "/v1/messages",
                body,
              );
              await response.text();
              if (request.id !== "auto/thrifty") {
                expect(others.map((fake) => fake.completionHits().length)).toEqual(before);
                if (response.status === 200) {
                  expect(response.headers.get("x-planfirst-connection")).toBe("plan");
                }
              }
              harness.clock.advance(60_000);
            }
          } finally {
            await harness.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
