import type { ModelExplanation } from "@planfirst/gateway";
import { describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import type { HistoryBucket } from "../src/status/history-store";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, type Harness, post, useTestBed } from "./harness";

const KEYS = {
  ALICE_KEY: "pf-alice-secret-value-801",
  BOB_KEY: "pf-bob-secret-value-802",
  OPS_KEY: "pf-ops-secret-value-803",
};
const alice = { authorization: `Bearer ${KEYS.ALICE_KEY}` };
const bob = { authorization: `Bearer ${KEYS.BOB_KEY}` };
const ops = { authorization: `Bearer ${KEYS.OPS_KEY}` };

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => {
    const standard = standardConfig(fakes);
    return {
      config: standardConfig(fakes, {
        server: {
          apiKeys: [
            { key: "env:ALICE_KEY", id: "alice", budgetUsd: 1 },
            { key: "env:BOB_KEY", id: "bob", connections: ["openrouter"] },
            { key: "env:OPS_KEY", id: "ops", role: "admin" },
          ],
        },
        catalog: {
          connections: standard.catalog?.connections ?? [],
          models: [
            {
              provider: "openrouter",
              model: "qwen/qwen3-coder",
              inputPerMTok: 0.2,
              outputPerMTok: 0.8,
            },
          ],
        },
      }),
      env: { ...TEST_ENV, ...KEYS },
    };
  },
});

/** 10 input and 1 000 output tokens on the cheap model: $0.000802. */
const COST_USD = 0.000802;

async function getAs<T>(harness: Harness, path: string, headers: Record<string, string>) {
  const response = await fetch(`${harness.url}${path}`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function spend(headers: Record<string, string>, times: number) {
  bed.fakes.router.script(() => ({ usage: { inputTokens: 10, outputTokens: 1000 } }));
  for (let i = 0; i < times; i++) {
    const answer = await post(
      bed.harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder", { max_tokens: 1000 }),
      headers,
    );
    expect(answer.status).toBe(200);
  }
}

const cheapOf = (status: GatewayStatus) => status.budgets.find((budget) => budget.rung === "cheap");

describe("what an admin key and a client key see", () => {
  it("/v1/status: an admin sees every key's spend and budget, a client key only its own", async () => {
    await spend(alice, 1);
    await spend(bob, 2);
    const harness = bed.harness;

    const asAdmin = await getAs<GatewayStatus>(harness, "/v1/status", ops);
    expect(cheapOf(asAdmin)).toMatchObject({ spentUsd: 3 * COST_USD, ofKey: null, budgetUsd: 5 });
    expect(asAdmin.keyBudgets).toEqual([
      {
        key: "alice",
        window: "day",
        windowKey: "day:2026-11-30",
        spentUsd: COST_USD,
        reservedUsd: 0,
        budgetUsd: 1,
        resetsAt: "2026-12-01T00:00:00.000Z",
      },
    ]);

    const asAlice = await getAs<GatewayStatus>(harness, "/v1/status", alice);
    expect(cheapOf(asAlice)).toMatchObject({
      spentUsd: COST_USD,
      reservedUsd: 0,
      ofKey: "alice",
      budgetUsd: 5,
    });
    expect(asAlice.keyBudgets.map((budget) => budget.key)).toEqual(["alice"]);
    // The prompt-cache reads of its own requests, where an admin sees every key's.
    expect(asAdmin.cacheReadsLastHour?.cheap?.inputTokens).toBe(30);
    expect(asAlice.cacheReadsLastHour?.cheap?.inputTokens).toBe(10);
    expect(asAlice.connections).toHaveLength(3);

    const asBob = await getAs<GatewayStatus>(harness, "/v1/status", bob);
    expect(cheapOf(asBob)).toMatchObject({ spentUsd: 2 * COST_USD, ofKey: "bob" });
    expect(asBob.keyBudgets).toEqual([]);
    expect(asBob.connections.map((connection) => connection.id)).toEqual(["openrouter"]);
  });

  it("the status page and its history: a client key sees its own spend and no spend series", async () => {
    const harness = bed.harness;
    const adminPage = await (await fetch(`${harness.url}/`, { headers: ops })).text();
    expect(adminPage).toContain(`spent $${(3 * COST_USD).toFixed(4)} of $5.00`);
    expect(adminPage).toContain('data-key-budget="alice"');

    const alicePage = await (await fetch(`${harness.url}/`, { headers: alice })).text();
    expect(alicePage).toContain(`key alice spent $${COST_USD.toFixed(4)} of the rung`);
    expect(alicePage).not.toContain(`$${(3 * COST_USD).toFixed(4)}`);
    const bobPage = await (await fetch(`${harness.url}/`, { headers: bob })).text();
    expect(bobPage).not.toContain("data-key-budget");

    const series = async (headers: Record<string, string>) => {
      const { buckets } = await getAs<{ buckets: HistoryBucket[] }>(
        harness,
        "/v1/status/history",
        headers,
      );
      return new Set(buckets.flatMap((bucket) => Object.keys(bucket.levels)));
    };
    expect(await series(ops)).toContain("spent:cheap");
    expect([...(await series(alice))].filter((name) => name.startsWith("spent:"))).toEqual([]);
  });

  it("the page's live events: a client key is pushed its own view", async () => {
    const response = await fetch(`${bed.harness.url}/v1/status/events`, { headers: alice });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // Until the first status event is whole (it ends with a blank line).
    let text = "";
    while (!/event: status\n[\s\S]*?\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    expect(text).toContain(`key alice spent $${COST_USD.toFixed(4)}`);
    expect(text).not.toContain(`$${(3 * COST_USD).toFixed(4)}`);
  });

  it("/v1/ladder: a client key's paid rungs show its own spend and reasons without others' amounts", async () => {
    const harness = bed.harness;
    const cheapBudget = (explanation: ModelExplanation) =>
      explanation.ladder.budgets.find((budget) => budget.rung === "cheap")!;

    const asAdmin = await getAs<ModelExplanation>(harness, "/v1/ladder?model=auto/thrifty", ops);
    expect(cheapBudget(asAdmin).spentUsd).toBe(3 * COST_USD);
    expect(cheapBudget(asAdmin).reason).toBe("cheap within budget: $0.00 of $5.00 (B4)");

    const asAlice = await getAs<ModelExplanation>(harness, "/v1/ladder?model=auto/thrifty", alice);
    expect(cheapBudget(asAlice)).toMatchObject({
      spentUsd: COST_USD,
      exhausted: false,
      reason: "cheap within budget (B4)",
    });
    const cheapConnection = asAlice.ladder.candidates
      .flatMap((candidate) => candidate.connections)
      .find((connection) => connection.rung === "cheap")!;
    expect(cheapConnection.budget?.spentUsd).toBe(COST_USD);
    expect(cheapConnection.reason).toBe("cheap within budget (B4)");
    expect(JSON.stringify(asAlice)).not.toContain(String(3 * COST_USD));
    expect(asAlice.targets).toEqual(asAdmin.targets);
  });
});
