import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { post, useTestBed } from "./harness";

// `POST /v1/messages/count_tokens` is forwarded to an Anthropic upstream of the route
// and its number returned as it is; only when no Anthropic upstream can answer does the gateway
// estimate, and then it says so in `x-planfirst-estimate: true`.

const bed = useTestBed(STANDARD_FAKES);

const body = (model: string) => ({
  model,
  system: "You are terse.",
  messages: [{ role: "user", content: "count me" }],
});

describe("POST /v1/messages/count_tokens", () => {
  it("returns the Anthropic upstream's own count, unmarked", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.countTokens(4321);
    const response = await post(
      harness.url,
      "/v1/messages/count_tokens",
      body("claude-sonnet-4-5"),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 4321 });
    expect(response.headers.get("x-planfirst-estimate")).toBeNull();
    expect(response.headers.get("x-planfirst-connection")).toBe("claude-plan");

    const hits = bed.fakes.plan.hits.filter((hit) => hit.path === "/v1/messages/count_tokens");
    expect(hits).toHaveLength(1);
    expect(hits[0]!.body).toMatchObject({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "count me" }],
    });
    expect(hits[0]!.auth.header).not.toBeNull();
    // Counting is not a completion: no message was asked of any upstream.
    expect(bed.fakes.plan.completionHits()).toHaveLength(0);
    expect(bed.fakes.router.hits).toHaveLength(0);
  });

  it("estimates, marked, when the route has no Anthropic upstream", async () => {
    const harness = await bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
    bed.fakes.plan.countTokens(4321);
    const response = await post(harness.url, "/v1/messages/count_tokens", body("qwen/qwen3-coder"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-estimate")).toBe("true");
    const counted = (await response.json()) as { input_tokens: number };
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(counted.input_tokens).not.toBe(4321);
    // The OpenAI-protocol upstream is never asked, and neither is the plan serving another model.
    expect(bed.fakes.router.hits).toHaveLength(0);
    expect(bed.fakes.plan.hits).toHaveLength(0);
  });
});
