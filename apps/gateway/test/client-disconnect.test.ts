import type { FakeUpstream } from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GatewayStatus } from "../src/status/gateway-status";
import { standardConfig, TEST_ENV } from "./fixtures";
import {
  chatBody,
  getJson,
  type Harness,
  ledgerOf,
  messagesBody,
  type SocketWatch,
  startFakes,
  startHarness,
  waitFor,
  watchSockets,
} from "./harness";

let fakes: { plan: FakeUpstream; router: FakeUpstream; pricey: FakeUpstream };
let watch: SocketWatch;
let harness: Harness | undefined;

beforeAll(async () => {
  fakes = await startFakes({ plan: "anthropic", router: "openai", pricey: "openai" });
  watch = await watchSockets(fakes.router);
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const fake of Object.values(fakes)) fake.reset();
});
afterAll(async () => {
  await watch.close();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
});

/** The standard ladder with the plan disabled and the cheap rung reached through the relay. */
async function startPaidOnly(): Promise<Harness> {
  const config = standardConfig(fakes);
  config.connections = config.connections!.map((connection) =>
    connection.id === "openrouter" ? { ...connection, baseUrl: watch.url } : connection,
  );
  return startHarness({ config, env: { ...TEST_ENV, PLAN_TOKEN: "" } });
}

/** A slow upstream stream: 100 frames 50 ms apart, long enough to leave in the middle. */
const SLOW_STREAM = {
  stream: { chunks: Array.from({ length: 100 }, (_, i) => `w${i} `), chunkDelayMs: 50 },
};

function budgetOf(status: GatewayStatus, rung: string) {
  return status.budgets.find((budget) => budget.rung === rung)!;
}

describe("a client that goes away", () => {
  for (const [path, body] of [
    ["/v1/chat/completions", chatBody("qwen/qwen3-coder", { stream: true })],
    ["/v1/messages", messagesBody("qwen/qwen3-coder", { stream: true })],
  ] as const) {
    it(`mid-stream on ${path}: the upstream request is aborted and the paid reservation is settled, not leaked`, async () => {
      harness = await startPaidOnly();
      fakes.router.script(() => SLOW_STREAM);
      const closedBefore = watch.closedByGateway;

      const controller = new AbortController();
      const response = await fetch(`${harness.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-planfirst-rung")).toBe("cheap");
      const reservedUsd = Number(response.headers.get("x-planfirst-cost-usd"));
      expect(reservedUsd).toBeGreaterThan(0);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);

      // While the stream runs, its worst case is held against the rung's budget.
      const during = budgetOf(await getJson<GatewayStatus>(harness.url, "/v1/status"), "cheap");
      expect(during.reservedUsd).toBe(reservedUsd);
      expect(during.spentUsd).toBe(0);

      controller.abort();
      await waitFor(() => watch.closedByGateway > closedBefore, {
        what: "the gateway to drop its upstream socket",
      });
      // The upstream socket went away long before the 5 s stream could have finished.
      expect(fakes.router.completionHits()).toHaveLength(1);

      const ledger = ledgerOf(harness);
      await waitFor(() => ledger.reservedUsd("cheap") === 0, {
        what: "the reservation to be settled",
      });
      const records = await ledger.records();
      expect(records).toHaveLength(1);
      // The prompt was billed upstream: booked at the settled amount, which is within the hold.
      const settledUsd = records[0]!.costUsd;
      expect(settledUsd).toBeGreaterThan(0);
      expect(settledUsd).toBeLessThanOrEqual(reservedUsd);
      const after = budgetOf(await getJson<GatewayStatus>(harness.url, "/v1/status"), "cheap");
      expect(after.spentUsd + after.reservedUsd).toBe(settledUsd);
    });
  }

  it("before the upstream answers: the upstream request is aborted and the reservation released", async () => {
    harness = await startPaidOnly();
    fakes.router.script(() => ({ delayMs: 3_000 }));
    const closedBefore = watch.closedByGateway;

    const controller = new AbortController();
    const pending = fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chatBody("qwen/qwen3-coder")),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await waitFor(() => fakes.router.completionHits().length === 1, {
      what: "the request to reach the upstream",
    });
    const ledger = ledgerOf(harness);
    expect(ledger.reservedUsd("cheap")).toBeGreaterThan(0);

    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitFor(() => watch.closedByGateway > closedBefore, {
      what: "the gateway to drop its upstream socket",
    });
    await waitFor(() => ledger.reservedUsd("cheap") === 0, {
      what: "the reservation to be released",
    });
    expect(ledger.spentUsd("cheap")).toBe(0);
    expect(await ledger.records()).toHaveLength(0);
  });

  for (const [path, body] of [
    ["/v1/chat/completions", chatBody("qwen/qwen3-coder", { stream: true })],
    ["/v1/messages", messagesBody("qwen/qwen3-coder", { stream: true })],
  ] as const) {
    it(`after the upstream headers, before the first byte, on ${path}: the connection is not cooled and nothing falls through`, async () => {
      harness = await startPaidOnly();
      // Headers go out at once; the first frame only after the client has hung up.
      fakes.router.script([{ stream: { chunks: ["late"], firstFrameDelayMs: 1_500 } }]);
      const ledger = ledgerOf(harness);
      const url = harness.url;

      const controller = new AbortController();
      const pending = fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      // The upstream latency is recorded when the upstream's response headers reach the gateway.
      await waitFor(
        async () => /planfirst_upstream_latency_seconds_count\S* 1$/m.test(await metricsText(url)),
        {
          what: "the upstream response headers to reach the gateway",
        },
      );
      const heldUsd = ledger.reservedUsd("cheap");
      expect(heldUsd).toBeGreaterThan(0);

      controller.abort();
      expect(await pending).toBeInstanceOf(Error);
      await waitFor(() => ledger.reservedUsd("cheap") === 0, {
        what: "the reservation to be settled",
      });
      // At most the prompt the upstream has billed, never more than the hold.
      const booked = (await ledger.records()).reduce((sum, record) => sum + record.costUsd, 0);
      expect(booked).toBeLessThanOrEqual(heldUsd);
      expect(await metricsText(url)).not.toMatch(/planfirst_fallthroughs_total\{[^}]*openrouter/);
      expect(fakes.router.completionHits()).toHaveLength(1);

      // The connection still serves: a hang-up never pushes later requests off it.
      const next = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(next.status).toBe(200);
      expect(next.headers.get("x-planfirst-connection")).toBe("openrouter");
      await next.text();
    });
  }
});

async function metricsText(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  return response.text();
}
