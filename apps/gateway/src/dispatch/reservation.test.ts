import { serverError } from "@planfirst/fake-upstream";
import * as spendLedger from "@planfirst/spend-ledger";
import { estimateWorstCaseCost, formatUsd, microToUsd } from "@planfirst/spend-ledger";
import { afterEach, describe, expect, it, vi } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "../../test/fixtures";
import { chatBody, ledgerOf, post, useTestBed } from "../../test/harness";

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

const env = { ...TEST_ENV, PLAN_TOKEN: "" };

/** The worst case of `body` at `price`, its input read from `sentText` (what went upstream). */
const worstCaseAsSent = (price: typeof premiumPrice, sentText?: string) =>
  estimateWorstCaseCost({ body, protocol: "openai", price, sentText }).costMicroUsd;

/**
 * The text the premium target is sent for `body` after the cheap one failed, read from the fake
 * premium upstream by a first gateway with room to spare.
 */
async function premiumSentText(): Promise<string> {
  const roomy = await bed.start({ config: config(100), env });
  bed.fakes.router.script([serverError("openai")]);
  const response = await post(roomy.url, "/v1/chat/completions", body);
  expect(response.headers.get("x-planfirst-rung")).toBe("premium");
  const hit = bed.fakes.pricey.completionHits().at(-1)!;
  await roomy.close();
  vi.mocked(spendLedger.scanWorstCase).mockClear();
  return JSON.stringify(hit.body);
}

describe("worst-case reservation across a fall-through (real HTTP, SQLite ledger)", () => {
  it("prices each paid target on the body it is sent: exactly enough budget serves, and books that reservation", async () => {
    const sentText = await premiumSentText();
    const exact = worstCaseAsSent(premiumPrice, sentText);
    // The premium target is sent its own model name, longer than the one the client asked for.
    expect(exact).toBeGreaterThan(worstCaseAsSent(premiumPrice));
    const harness = await bed.start({ config: config(microToUsd(exact)), env });
    bed.fakes.router.script([serverError("openai")]);

    const response = await post(harness.url, "/v1/chat/completions", body);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-rung")).toBe("premium");
    expect(response.headers.get("x-planfirst-attempts")).toBe("2");
    expect(JSON.stringify(bed.fakes.pricey.completionHits().at(-1)!.body)).toBe(sentText);
    // One scan per paid target, each of the body that target was sent.
    expect(scanCalls()).toBe(2);

    // The cheap reservation was given back; the premium one settled at the real cost, its
    // record keeping the amount reserved.
    const { ledger } = harness.server.gateway.deps;
    const records = await vi.waitFor(async () => {
      const found = await ledgerOf(harness).records({ rung: "premium" });
      expect(found).toHaveLength(1);
      return found;
    });
    expect(records[0]!.reservedMicroUsd).toBe(exact);
    await harness.server.gateway.close();
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(ledger.spentUsd("cheap")).toBe(0);
    expect(ledger.reservedUsd("premium")).toBe(0);
    expect(formatUsd(spendLedger.usdToMicro(ledger.spentUsd("premium")))).toBe(
      response.headers.get("x-planfirst-cost-usd"),
    );
  });

  it("one micro-dollar short of the worst case of the body sent is refused", async () => {
    const sentText = await premiumSentText();
    const harness = await bed.start({
      config: config(microToUsd(worstCaseAsSent(premiumPrice, sentText) - 1)),
      env,
    });
    bed.fakes.router.script([serverError("openai")]);
    const premiumHits = bed.fakes.pricey.completionHits().length;

    const response = await post(harness.url, "/v1/chat/completions", body);
    expect(response.status).toBe(502);
    const error = (await response.json()) as {
      error: { code: string; attempts: { connection: string; outcome: string }[] };
    };
    expect(error.error.code).toBe("all_targets_failed");
    expect(JSON.stringify(error.error.attempts)).toContain("budget_refused");
    expect(bed.fakes.pricey.completionHits()).toHaveLength(premiumHits);
  });

  it("scans each request's own body", async () => {
    const harness = await bed.start({ config: config(100), env });
    for (let i = 0; i < 3; i++) {
      const response = await post(harness.url, "/v1/chat/completions", body);
      expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
    }
    expect(scanCalls()).toBe(3);
  });
});
