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
/** The plan also says extra usage is on or off, and refuses for money (ladder.md §14). */
const planBehaviour = fc.constantFrom(
  "ok",
  "ok-low",
  "429",
  "500",
  "stream-cut",
  "ok-overage-on",
  "ok-overage-off",
  "money-400",
  "money-429",
);
/** Plan behaviours whose answer is evidence `on` (E1). */
const EVIDENCE_ON = new Set(["ok-overage-on", "money-400", "money-429"]);
const MAX_STATE_AGE_MS = 180_000;

function anthropicError(status: number, type: string, message: string): Reply {
  return { status, body: { type: "error", error: { type, message } } };
}

function replyFor(kind: string, protocol: "openai" | "anthropic", nowMs: number): Reply {
  const resetAtSec = Math.floor((nowMs + 3_600_000) / 1000);
  switch (kind) {
    case "ok":
      return { headers: claudeUnifiedHeaders({ fiveHour: { utilization: 0.3, resetAtSec } }) };
    case "ok-low":
      return { headers: claudeUnifiedHeaders({ fiveHour: { utilization: 0.99, resetAtSec } }) };
    case "ok-overage-on":
      return {
        headers: claudeUnifiedHeaders({
          fiveHour: { utilization: 0.3, resetAtSec },
          overageStatus: "allowed",
        }),
      };
    case "ok-overage-off":
      return {
        headers: claudeUnifiedHeaders({
          fiveHour: { utilization: 0.2, resetAtSec },
          overageStatus: "rejected",
          overageDisabledReason: "org_level_disabled",
        }),
      };
    case "money-400":
      return anthropicError(
        400,
        "invalid_request_error",
        "Third-party apps now draw from your extra usage, not your plan limits.",
      );
    case "money-429":
      return anthropicError(
        429,
        "rate_limit_error",
        "Extra usage is required for long context requests.",
      );
    case "429":
      return claudeRateLimited({ resetAtSec, retryAfterSec: 3600 });
    case "500":
      return serverError(protocol);
    default:
      return { stream: { chunks: ["a", "b", "c"], cutAfter: 1 } };
  }
}

describe("SUB2/SUB6 property: auto/subscription only ever reaches verified hard-stop plans", () => {
  it("no auto/subscription request reaches any other connection, nor a plan whose fresh evidence or money refusal says it bills (E1–E4), whatever the upstreams do", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          planUsedPercent: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
          // The usage endpoint's extra_usage.is_enabled: on, off or absent.
          extraUsage: fc.constantFrom(true, false, undefined),
          // With the operator's vouch block (hard-stop) or the bundled catalog alone (unknown).
          vouched: fc.boolean(),
          behaviours: fc.array(fc.tuple(planBehaviour, behaviour, behaviour, behaviour), {
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
        async ({ planUsedPercent, extraUsage, vouched, behaviours, requests }) => {
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
              catalog: { connections: vouched ? [CLAUDE_HARD_STOP_ENTRY] : [] },
              categories: { coding: ["*"] },
            },
          });
          try {
            const now = harness.clock.now();
            // When the plan's own answer last said it bills (evidence `on`), epoch ms.
            let lastOnMs = Number.NEGATIVE_INFINITY;
            if (planUsedPercent !== undefined) {
              const payload: Record<string, unknown> = claudeUsagePayload(
                planUsedPercent,
                now + 3_600_000,
              );
              if (extraUsage !== undefined) payload.extra_usage = { is_enabled: extraUsage };
              bed.fakes.plan.usage(payload, { endpoint: "claude" });
              await harness.server.gateway.refreshUsage();
              if (extraUsage === true) lastOnMs = now;
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
              const planBefore = bed.fakes.plan.completionHits().length;
              const nowMs = harness.clock.now();
              const evidenceOnFresh = nowMs - lastOnMs < MAX_STATE_AGE_MS;
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
              const planHit = bed.fakes.plan.completionHits().length > planBefore;
              if (request.id !== "auto/thrifty") {
                expect(others.map((fake) => fake.completionHits().length)).toEqual(before);
                // E4: while the plan's own fresh evidence says it bills, it is sent nothing.
                if (evidenceOnFresh) expect(planHit).toBe(false);
                if (response.status === 200) {
                  expect(response.headers.get("x-planfirst-connection")).toBe("plan");
                }
              }
              const row = behaviours[step % behaviours.length]!;
              if (planHit && EVIDENCE_ON.has(row[0]!)) lastOnMs = nowMs;
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
