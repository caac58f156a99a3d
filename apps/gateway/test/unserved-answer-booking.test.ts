import type { SpendRecord } from "@planfirst/spend-ledger";
import { describe, expect, it } from "vitest";
import { routerConnection } from "./fixtures";
import { chatBody, ledgerOf, post, useTestBed, waitFor } from "./harness";
import { TEAM_ENV, TEAM_KEY, waitForRequests } from "./request-log-helpers";

// Rule B8: once a paid upstream has answered 2xx, its attempt is booked even when the answer
// cannot be served, and the request falls through. Two paid connections of one price share the
// cheap rung, both on the fake router: whichever is tried first gets the scripted bad answer,
// the other serves.

const bed = useTestBed({ router: "openai" });

const paid = (id: string) => routerConnection(bed.fakes.router.url, { id });

const start = () =>
  bed.start({
    config: {
      connections: [paid("router-a"), paid("router-b")],
      subscriptionLadder: { rungBudgetUsd: { cheap: 5 } },
      server: { apiKeys: [{ key: "env:CLIENT_KEY", id: "team", role: "admin" as const }] },
    },
    env: { ...TEAM_ENV, ROUTER_KEY: "sk-or-v1-unserved-answer-key-0001" },
  });

/** The input estimate of a body sent upstream: its JSON's UTF-8 bytes over 3, rounded up. */
const estimateOf = (body: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 3);

/** The output limit of the test bodies (`chatBody`'s `max_tokens`). */
const OUTPUT_LIMIT = chatBody("qwen/qwen3-coder").max_tokens;

/** The ledger's records once no reservation is held any more. */
async function settledRecords(harness: Awaited<ReturnType<typeof start>>): Promise<SpendRecord[]> {
  const ledger = ledgerOf(harness);
  await waitFor(
    async () => ledger.reservedUsd("cheap") === 0 && (await ledger.records()).length >= 2,
    {
      what: "both attempts settled",
    },
  );
  return ledger.records();
}

describe("B8 a 2xx answer that cannot be served is booked, never given back", () => {
  it.each([
    [
      "a whole body cut short",
      {
        text: '{"id":"chatcmpl-1","object":"chat.comp',
        headers: { "content-type": "application/json" },
      },
      false,
      "invalid_body",
    ],
    [
      "a stream with no event in it",
      { text: "", headers: { "content-type": "text/event-stream" } },
      true,
      "stream_error_before_first_byte",
    ],
  ] as const)(
    "%s: the attempt books what was reserved for it, the next connection serves, the record counts both",
    async (_name, badAnswer, stream, outcome) => {
      const harness = await start();
      bed.fakes.router.script([badAnswer, {}]);
      const body = { ...chatBody("qwen/qwen3-coder"), stream };
      const response = await post(harness.url, "/v1/chat/completions", body, TEAM_KEY);
      expect(response.status, await response.clone().text()).toBe(200);
      await response.text();
      expect(bed.fakes.router.completionHits()).toHaveLength(2);

      const records = await settledRecords(harness);
      const served = response.headers.get("x-planfirst-connection");
      const unserved = records.find((record) => record.connectionId !== served);
      const answered = records.find((record) => record.connectionId === served);
      // The unserved attempt reported no usage: what it generated is unknown, so it books the
      // bound it was reserved at (the input estimate and the output limit), not the prompt alone.
      const [sentToUnserved] = bed.fakes.router.completionHits();
      expect(unserved).toMatchObject({
        inputTokens: estimateOf(sentToUnserved!.body),
        outputTokens: OUTPUT_LIMIT,
      });
      expect(unserved!.costMicroUsd).toBe(unserved!.reservedMicroUsd);
      // The served one, from the usage its answer reported (the fake's 12 in, 1 out).
      expect(answered).toMatchObject({ inputTokens: 12, outputTokens: 1 });

      const [record] = await waitForRequests(harness, 1);
      expect(record!.attempts.map((attempt) => attempt.outcome)).toEqual([outcome, "ok"]);
      expect(record!.costUsd).toBeCloseTo(unserved!.costUsd + answered!.costUsd, 9);
    },
  );

  it("a refused attempt (5xx) gives its reservation back and books nothing", async () => {
    const harness = await start();
    bed.fakes.router.script([{ status: 503, body: { error: { message: "overloaded" } } }, {}]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody("qwen/qwen3-coder"),
      TEAM_KEY,
    );
    expect(response.status).toBe(200);
    const ledger = ledgerOf(harness);
    await waitFor(
      async () => ledger.reservedUsd("cheap") === 0 && (await ledger.records()).length >= 1,
      {
        what: "the served attempt settled",
      },
    );
    const records = await ledger.records();
    expect(records).toHaveLength(1);
    expect(records[0]!.connectionId).toBe(response.headers.get("x-planfirst-connection"));
  });
});
