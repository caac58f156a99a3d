import { serverError } from "@planfirst/fake-upstream";
import * as spendLedger from "@planfirst/spend-ledger";
import { estimateWorstCaseCost, formatUsd, microToUsd } from "@planfirst/spend-ledger";
import { afterEach, describe, expect, it, vi } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "../../test/fixtures";
import { chatBody, post, useTestBed } from "../../test/harness";

// The real scan, with its calls counted: every result is the real function's.
vi.mock("@planfirst/spend-ledger", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@planfirst/spend-ledger")>();
  return { ...actual, scanWorstCase: vi.fn(actual.scanWorstCase) };
});
const scanCalls = () => vi.mocked(spendLedger.scanWorstCase).mock.calls.length;

const bed = useTestBed(STANDARD_FAKES);
afterEach(() => vi.mocked(spendLedger.scanWorstCase).mockClear());

// Prices owned by this test (operator catalog entries), so the expected reservations are exact.
const cheapPrice = { inputPerMTok: 0.2, outputPerMTok: 0.8 };
const premiumPrice = { inputPerMTok: 3, outputPerMTok: 15 };
const body = chatBody("auto/thrifty", {
  messages: [{ role: "user", content: "Explain the ledger in one paragraph. ".repeat(40) }],
  max_tokens: 200,
});

function config(premiumBudgetUsd: number) {
  const standard = standardConfig(bed.fakes);
  return standardConfig(bed.fakes, {
    catalog: {
      connections: standard.catalog?.connections ?? [],
      models: [
        { provider: "openrouter", model: "qwen/qwen3-coder", ...cheapPrice },
        { provider: "openrouter", model: "anthropic/claude-sonnet-4.5", ...premiumPrice },
      ],
    },
    subscriptionLadder: { rungBudgetUsd: { cheap: 5, premium: premiumBudgetUsd } },
  });
}

const premiumWorstCase = () =>
  estimateWorstCaseCost({ body, protocol: "openai", price: premiumPrice }).costMicroUsd;

describe("worst-case reservation across a fall-through (real HTTP, SQLite ledger)", () => {
  it("scans the body once when a request falls through from one paid target to a second", async () => {
    // The premium budget is exactly the premium worst case: admitted only at its own price.
    const harness = await bed.start({
      config: config(microToUsd(premiumWorstCase())),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    bed.fakes.router.script([serverError("openai")]);

    const response = await post(harness.url, "/v1/chat/completions", body);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("premium");
    expect(response.headers.get("x-planfirst-attempts")).toBe("2");
    expect(bed.fakes.router.completionHits()).toHaveLength(1);
    expect(bed.fakes.pricey.completionHits()).toHaveLength(1);
    expect(scanCalls()).toBe(1);

    // The cheap reservation was given back; the premium one settled at the real cost.
    await harness.server.gateway.close();
    const { ledger } = harness.server.gateway.deps;
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(ledger.spentUsd("cheap")).toBe(0);
    expect(ledger.reservedUsd("premium")).toBe(0);
    expect(formatUsd(spendLedger.usdToMicro(ledger.spentUsd("premium")))).toBe(
      response.headers.get("x-planfirst-cost-usd"),
    );
  });

  it("prices the reused scan at the second target's own price: one micro-dollar short is refused", async () => {
    const harness = await bed.start({
      config: config(microToUsd(premiumWorstCase() - 1)),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    bed.fakes.router.script([serverError("openai")]);

    const response = await post(harness.url, "/v1/chat/completions", body);
    expect(response.status).toBe(502);
    const error = (await response.json()) as {
      error: { code: string; attempts: { connection: string; outcome: string }[] };
    };
    expect(error.error.code).toBe("all_targets_failed");
    expect(JSON.stringify(error.error.attempts)).toContain("budget_refused");
    expect(bed.fakes.pricey.completionHits()).toHaveLength(0);
    expect(scanCalls()).toBe(1);
  });

  it("scans each request's own body", async () => {
    const harness = await bed.start({
      config: config(100),
      env: { ...TEST_ENV, PLAN_TOKEN: "" },
    });
    for (let i = 0; i < 3; i++) {
      const response = await post(harness.url, "/v1/chat/completions", body);
      expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    }
    expect(scanCalls()).toBe(3);
  });
});
