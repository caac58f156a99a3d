import { afterAll, describe, expect, it } from "vitest";
import { keyBudgetScope } from "../src/config/client-key-policy";
import type { GatewayConfigInput } from "../src/config/schema";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import {
  chatBody,
  createClock,
  deleteRedisKeys,
  type Harness,
  ledgerOf,
  post,
  redisStorage,
  useTestBed,
} from "./harness";

const bed = useTestBed(STANDARD_FAKES);
const prefixes: string[] = [];
afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => deleteRedisKeys(prefix)));
});

const KEYS = { ALICE_KEY: "pf-alice-secret-value-601", BOB_KEY: "pf-bob-secret-value-602" };
const alice = { authorization: `Bearer ${KEYS.ALICE_KEY}` };
const bob = { authorization: `Bearer ${KEYS.BOB_KEY}` };

/** Prices owned by the test (operator catalog entries), so every cost below is exact. */
const PRICES = [
  { provider: "openrouter", model: "qwen/qwen3-coder", inputPerMTok: 0.2, outputPerMTok: 0.8 },
  {
    provider: "openrouter",
    model: "anthropic/claude-sonnet-4.5",
    inputPerMTok: 3,
    outputPerMTok: 15,
  },
];

/** 10 input and 1 000 output tokens on the cheap model: $0.000802, within its worst case. */
const CHEAP_USAGE = { inputTokens: 10, outputTokens: 1000 };
const CHEAP_COST_USD = 0.000802;
const paidBody = () => chatBody("qwen/qwen3-coder", { max_tokens: 1000 });

function config(aliceEntry: Record<string, unknown>): GatewayConfigInput {
  const standard = standardConfig(bed.fakes);
  return standardConfig(bed.fakes, {
    // Hundreds of requests at once on a shared machine: no upstream call may time out, since a
    // call the gateway gave up on may still have been billed.
    connections: standard.connections?.map((connection) => ({ ...connection, timeoutMs: 60_000 })),
    server: {
      apiKeys: [
        { key: "env:ALICE_KEY", id: "alice", ...aliceEntry },
        { key: "env:BOB_KEY", id: "bob" },
      ],
    },
    catalog: { connections: standard.catalog?.connections ?? [], models: PRICES },
  });
}

/** Refusals that send nothing upstream and book nothing. */
const NOTHING_SENT = ["key_budget_exhausted", "spend_store_unavailable"];

async function codesOf(answers: readonly Response[]): Promise<string[]> {
  return Promise.all(
    answers.map(async (answer) => ((await answer.json()) as ErrorAnswer).error.code),
  );
}

interface ErrorAnswer {
  error: { code: string; message: string; resets_at: string; key: string };
}

describe("a client key's budget over every paid rung", () => {
  it("B7 a key over its budget is still served by a plan on auto/thrifty; on a paid model it gets 429 key_budget_exhausted with its window's reset", async () => {
    const harness = await bed.start({
      config: config({ budgetUsd: 0.001, budgetWindow: "week" }),
      env: { ...TEST_ENV, ...KEYS },
    });
    bed.fakes.router.script(() => ({ usage: CHEAP_USAGE }));

    const first = await post(harness.url, "/v1/chat/completions", paidBody(), alice);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-planfirst-cost-usd")).toBe(String(CHEAP_COST_USD));

    // $0.000802 spent of $0.001: the next worst case does not fit the key's budget.
    const refused = await post(harness.url, "/v1/chat/completions", paidBody(), alice);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as ErrorAnswer;
    expect(body.error.code).toBe("key_budget_exhausted");
    expect(body.error.key).toBe("alice");
    expect(body.error.message).toContain('client key "alice"');
    expect(JSON.stringify(body)).not.toContain(KEYS.ALICE_KEY);
    // The harness clock is Monday 2026-11-30T10:00Z; the key's weekly window ends next Monday.
    expect(body.error.resets_at).toBe("2026-12-07T00:00:00.000Z");
    expect(refused.headers.get("retry-after")).toBe(String(6 * 86_400 + 14 * 3600));
    expect(bed.fakes.router.completionHits()).toHaveLength(1);

    // The plan costs nothing: auto/thrifty still serves the key there.
    const thrifty = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty"),
      alice,
    );
    expect(thrifty.status).toBe(200);
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("subscription");

    // Another key is not affected, and the rung counts each request once.
    const other = await post(harness.url, "/v1/chat/completions", paidBody(), bob);
    expect(other.status).toBe(200);
    const ledger = ledgerOf(harness);
    expect(ledger.spentUsd("cheap")).toBe(2 * CHEAP_COST_USD);
    expect(ledger.spentUsd(keyBudgetScope("alice"), ledger.currentWindowKey("week"))).toBe(
      CHEAP_COST_USD,
    );
    expect(ledger.spentUsd(keyBudgetScope("bob"), ledger.currentWindowKey("week"))).toBe(0);
    const records = await ledger.records();
    expect(records.map((record) => record.clientKeyId)).toEqual(["alice", "bob"]);
  });

  it("B7 budgetUsd 0 keeps a key off every paid rung: the plan serves auto/thrifty, a paid model is refused", async () => {
    const harness = await bed.start({
      config: config({ budgetUsd: 0 }),
      env: { ...TEST_ENV, ...KEYS },
    });
    const thrifty = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("auto/thrifty"),
      alice,
    );
    expect(thrifty.headers.get("x-planfirst-rung")).toBe("subscription");
    const paid = await post(harness.url, "/v1/chat/completions", paidBody(), alice);
    expect(paid.status).toBe(429);
    const body = (await paid.json()) as ErrorAnswer;
    expect(body.error.code).toBe("key_budget_exhausted");
    expect(body.error.message).toContain("no budget for paid rungs");
    // The ladder's daily window: midnight UTC.
    expect(body.error.resets_at).toBe("2026-12-01T00:00:00.000Z");
    expect(bed.fakes.router.completionHits()).toHaveLength(0);
  });
});

describe("one key's budget on two replicas sharing Redis", () => {
  /** Two gateways on one Redis key prefix and one clock. */
  async function twoReplicas(): Promise<[Harness, Harness]> {
    const storage = redisStorage();
    prefixes.push(storage.keyPrefix);
    const clock = createClock();
    const options = {
      config: config({ budgetUsd: 0.05 }),
      env: { ...TEST_ENV, ...KEYS, PLAN_TOKEN: "" },
      clock,
      storage,
    };
    return [await bed.start(options), await bed.start(options)];
  }

  it("B7 500 concurrent requests of one key with a $0.05 budget never spend past it; another key is not affected", async () => {
    const replicas = await twoReplicas();
    bed.fakes.router.script(() => ({ usage: CHEAP_USAGE }));
    const send = (index: number, headers: Record<string, string>) =>
      post(replicas[index % 2]!.url, "/v1/chat/completions", paidBody(), headers);
    const [aliceAnswers, bobAnswers] = await Promise.all([
      Promise.all(Array.from({ length: 500 }, (_, index) => send(index, alice))),
      Promise.all(Array.from({ length: 20 }, (_, index) => send(index, bob))),
    ]);

    const served = aliceAnswers.filter((answer) => answer.status === 200);
    // Everything else was refused before anything was sent: by the key's budget, or (on a
    // loaded machine) because the spend store missed its deadline, which admits nothing.
    const refusals = await codesOf(aliceAnswers.filter((answer) => answer.status !== 200));
    expect(refusals.filter((code) => code === "key_budget_exhausted").length).toBeGreaterThan(0);
    expect(refusals.every((code) => NOTHING_SENT.includes(code))).toBe(true);
    // True spend: what the upstream served and billed for the key, at its real price.
    const trueSpendUsd = served.length * CHEAP_COST_USD;
    expect(trueSpendUsd).toBeLessThanOrEqual(0.05);
    const booked = served.reduce(
      (sum, answer) => sum + Number(answer.headers.get("x-planfirst-cost-usd")),
      0,
    );
    expect(booked).toBeCloseTo(trueSpendUsd, 9);
    // Refusals leave at most one worst case of the budget unused.
    expect(trueSpendUsd).toBeGreaterThan(0.05 - 2 * CHEAP_COST_USD);
    // The other key is never refused for a budget: the key's refusals held none of the rung's.
    const bobServed = bobAnswers.filter((answer) => answer.status === 200).length;
    const bobRefusals = await codesOf(bobAnswers.filter((answer) => answer.status !== 200));
    expect(bobRefusals.every((code) => code === "spend_store_unavailable")).toBe(true);
    expect(bed.fakes.router.completionHits()).toHaveLength(served.length + bobServed);

    const ledger = ledgerOf(replicas[0]);
    await ledger.flush();
    const aliceRecords = await ledger.records({ clientKeyId: "alice" });
    expect(aliceRecords).toHaveLength(served.length);
    const window = ledger.currentWindowKey();
    expect(ledger.spentUsd(keyBudgetScope("alice"), window)).toBeCloseTo(trueSpendUsd, 9);
  });
});
