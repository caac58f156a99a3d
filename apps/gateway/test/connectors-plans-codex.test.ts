import { describe, expect, it } from "vitest";
import { hour, served, usePlanBed } from "./connectors-plans-helpers";
import { codexPlanConnection, codexPlanEnv } from "./fixtures";
import { type Harness, post } from "./harness";

// The ChatGPT plan connector against the fake Codex backend, through a real gateway: Responses
// over SSE, the x-codex quota headers, token refresh and the account's credits.

const bed = usePlanBed();
const { gateway, completionHits, zaiConnection } = bed;

async function responses(harness: Harness, model: string) {
  const response = await post(harness.url, "/v1/responses", {
    model,
    input: "hello",
    stream: true,
  });
  const text = await response.text();
  return { response, text, rung: response.headers.get("x-planfirst-rung") };
}

describe("ChatGPT plan through the Codex backend", () => {
  it("is served on rung 0 over Responses, with the account id and quota from the x-codex headers", async () => {
    const harness = await gateway(
      [codexPlanConnection(bed.plans, { timeoutMs: 5_000 })],
      codexPlanEnv(bed.plans),
      ["codex"],
    );
    const answer = await responses(harness, "gpt-5-codex");
    expect(answer.response.status, answer.text).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(answer.text).toContain("response.completed");
    const hit = completionHits("/backend-api/codex/responses").at(-1);
    expect(hit?.headers["chatgpt-account-id"]).toBe(bed.plans.codex.accountId);
    expect(hit?.headers.originator).toBeUndefined(); // planfirst never claims to be Codex
    const state = harness.server.gateway.deps.quotaCache.get("codex", "chatgpt");
    expect(state?.remainingPercent).toBe(70); // binding window: weekly at 30 % used
    // The in-band codex.rate_limits event was read too, after the headers.
    expect(state?.windows.some((window) => window.source === "event")).toBe(true);
  });

  it("refreshes the access token before it expires, mid-traffic, with no failed request", async () => {
    const harness = await gateway(
      [codexPlanConnection(bed.plans, { timeoutMs: 5_000 })],
      codexPlanEnv(bed.plans),
      ["codex"],
    );
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    const refreshes = bed.plans.codex.refreshes;
    bed.clock.advance(2 * hour); // the seeded token is past its JWT exp
    const after = await responses(harness, "gpt-5-codex");
    expect(after.response.status, after.text).toBe(200);
    expect(after.rung).toBe("subscription");
    expect(bed.plans.codex.refreshes).toBe(refreshes + 1);
    // The rotated refresh token was persisted: a second expiry refreshes again with it.
    bed.clock.advance(2 * hour);
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    expect(bed.plans.codex.refreshes).toBe(refreshes + 2);
  });

  it("usage_limit_reached escalates on auto/thrifty and gives auto/subscription its resets_at", async () => {
    const harness = await gateway(
      [codexPlanConnection(bed.plans, { timeoutMs: 5_000 })],
      codexPlanEnv(bed.plans),
      ["codex"],
    );
    const resetSec = Math.floor(bed.clock.now() / 1000) + 3 * 3600;
    bed.plans.codex.exhaustedUntilSec = resetSec;
    const thrifty = await served(harness, "auto/thrifty", { stream: true });
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    const subscription = await responses(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((resetSec * 1000 - bed.clock.now()) / 1000),
    );
  });

  it("a refresh that fails cools only that connection: the request falls through and the other plan keeps serving", async () => {
    const harness = await gateway(
      [codexPlanConnection(bed.plans, { timeoutMs: 5_000 }), zaiConnection()],
      { ...codexPlanEnv(bed.plans), ZAI_KEY: bed.plans.zai.apiKey },
      ["codex"],
    );
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    bed.plans.codex.failRefreshes(true);
    bed.clock.advance(2 * hour);
    const codexHitsBefore = completionHits("/backend-api/codex/responses").length;
    const fell = await served(harness, "auto/thrifty", { stream: true });
    expect(fell.response.status).toBe(200);
    expect(fell.response.headers.get("x-planfirst-connection")).not.toBe("chatgpt");
    const zai = await served(harness, "auto/subscription");
    expect(zai.response.status).toBe(200);
    expect(zai.response.headers.get("x-planfirst-connection")).toBe("zai");
    // The expired token was never sent: nothing reached the Codex backend.
    expect(completionHits("/backend-api/codex/responses")).toHaveLength(codexHitsBefore);
    const logs = harness.logs.join("");
    expect(logs).toContain("connection chatgpt");
    expect(logs).not.toContain(codexPlanEnv(bed.plans).CODEX_REFRESH.slice(0, 12));
  });

  it("credits on the account make the plan one that can bill: auto/subscription stops using it", async () => {
    const harness = await gateway(
      [codexPlanConnection(bed.plans, { timeoutMs: 5_000 })],
      codexPlanEnv(bed.plans),
      ["codex"],
    );
    bed.plans.codex.hasCredits = true;
    expect((await responses(harness, "gpt-5-codex")).response.status).toBe(200);
    const hits = completionHits("/backend-api/codex/responses").length;
    const subscription = await responses(harness, "auto/subscription");
    expect(subscription.response.status).not.toBe(200);
    expect(completionHits("/backend-api/codex/responses")).toHaveLength(hits);
    const thrifty = await served(harness, "auto/thrifty", { stream: true });
    expect(thrifty.response.status).toBe(200);
  });
});
