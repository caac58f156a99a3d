import type { SpendRecord } from "@planfirst/spend-ledger";
import { describe, expect, it } from "vitest";
import { anthropicKeyConnection, routerConnection } from "./fixtures";
import { chatBody, ledgerOf, messagesBody, post, useTestBed, waitFor } from "./harness";

// Rule B8 for a paid stream the client has started reading: when it is cut, or its client
// leaves, the upstream has billed every token it generated, and the stream has not said how
// many. Its attempt books the input it reported (else the input estimate) and the request's
// output limit, so the books never count less than the bill. (What the booking takes from usage
// reported before an early end is covered by settle.test.ts.)

const bed = useTestBed({ router: "openai", messages: "anthropic" });

const start = () =>
  bed.start({
    config: {
      connections: [
        routerConnection(bed.fakes.router.url, { id: "router" }),
        anthropicKeyConnection(bed.fakes.messages.url),
      ],
      subscriptionLadder: { rungBudgetUsd: { cheap: 5, premium: 5 } },
    },
    env: { ROUTER_KEY: "sk-or-v1-cut-stream-key-0001", ANTHROPIC_KEY: "sk-ant-api03-cut-0002" },
  });

/** The only ledger record, once its reservation is settled. */
async function settledRecord(harness: Awaited<ReturnType<typeof start>>): Promise<SpendRecord> {
  const ledger = ledgerOf(harness);
  await waitFor(async () => (await ledger.records()).length === 1, { what: "the settle" });
  const [record] = await ledger.records();
  return record!;
}

/**
 * The input estimate of the body the router was last sent: its JSON's UTF-8 bytes over 3,
 * rounded up (what went upstream, the client's body with its model and stream options set).
 */
const sentEstimate = () =>
  Math.ceil(Buffer.byteLength(JSON.stringify(bed.fakes.router.completionHits().at(-1)!.body)) / 3);

describe("B8 a committed paid stream that does not end properly books its output limit", () => {
  it("an OpenAI stream cut after two chunks (no usage before the cut) books what was reserved", async () => {
    const harness = await start();
    bed.fakes.router.script([{ stream: { chunks: ["a", "b", "c", "d"], cutAfter: 2 } }]);
    const body = { ...chatBody("qwen/qwen3-coder"), stream: true };
    const response = await post(harness.url, "/v1/chat/completions", body);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("upstream_stream_cut");

    const record = await settledRecord(harness);
    expect(record).toMatchObject({
      connectionId: "router",
      inputTokens: sentEstimate(),
      outputTokens: body.max_tokens,
    });
    expect(record.costMicroUsd).toBe(record.reservedMicroUsd);
  });

  it("an Anthropic stream cut after two chunks books the prompt it reported and the output limit", async () => {
    const harness = await start();
    bed.fakes.messages.script([
      {
        stream: { chunks: ["a", "b", "c", "d"], cutAfter: 2 },
        usage: { inputTokens: 30, outputTokens: 4, cachedInputTokens: 20 },
      },
    ]);
    const body = { ...messagesBody("claude-haiku-4-5"), stream: true };
    const response = await post(harness.url, "/v1/messages", body);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("event: error");

    const record = await settledRecord(harness);
    // message_start counted the prompt, most of it read from cache; the output count was still
    // to come when the stream was cut.
    expect(record).toMatchObject({
      connectionId: "anthropic-api",
      inputTokens: 30,
      cachedInputTokens: 20,
      outputTokens: body.max_tokens,
    });
    // Tighter than the amount reserved (the prompt's estimate at the full input price).
    expect(record.costMicroUsd).toBeGreaterThan(0);
    expect(record.costMicroUsd).toBeLessThan(record.reservedMicroUsd);
  });

  it("a client that leaves a committed stream books what was reserved", async () => {
    const harness = await start();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    bed.fakes.router.script([{ stream: { chunks: ["a", "b"], holdUntil: held } }]);
    const body = { ...chatBody("qwen/qwen3-coder"), stream: true };
    const leave = new AbortController();
    const response = await fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: leave.signal,
    });
    expect(response.status).toBe(200);
    // The opening frame has reached the client: the stream is committed. The client leaves.
    const reader = response.body!.getReader();
    await reader.read();
    leave.abort();
    await reader.cancel().catch(() => undefined);

    const record = await settledRecord(harness);
    release();
    expect(record).toMatchObject({
      connectionId: "router",
      inputTokens: sentEstimate(),
      outputTokens: body.max_tokens,
    });
    expect(record.costMicroUsd).toBe(record.reservedMicroUsd);
  });

  it("a stream that ends properly books the usage it reported, not the bound", async () => {
    const harness = await start();
    bed.fakes.router.script([
      { stream: { chunks: ["a", "b"], usage: { inputTokens: 7, outputTokens: 2 } } },
    ]);
    const response = await post(harness.url, "/v1/chat/completions", {
      ...chatBody("qwen/qwen3-coder"),
      stream: true,
    });
    await response.text();
    const record = await settledRecord(harness);
    expect(record).toMatchObject({ inputTokens: 7, outputTokens: 2 });
    expect(record.costMicroUsd).toBeLessThan(record.reservedMicroUsd);
  });
});
