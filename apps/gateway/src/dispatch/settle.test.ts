import {
  costOf,
  createMemorySpendStore,
  createSpendLedger,
  isRefusal,
  microToUsd,
  priceWorstCase,
  usdToMicro,
} from "@planfirst/spend-ledger";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NormalizedUsage } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import { type ReportedUsage, settleSpend } from "./settle";
import type { ClientRequest } from "./types";

// Rule B8 on the money path: an attempt's answer is booked at no less than the upstream can
// have billed for it, whatever the answer reported before it ended. A real ledger on the memory
// store books each settle; the upstream's bill is the true usage at the price.

const price = fc.record({
  inputPerMTok: fc.integer({ min: 0, max: 30_000 }).map((n) => n / 1000),
  outputPerMTok: fc.integer({ min: 0, max: 90_000 }).map((n) => n / 1000),
  cachedInputPerMTok: fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
});

/**
 * An attempt: the bound its reservation was priced for, what the upstream really billed (a
 * prompt within the input estimate, output within the limit, some of the prompt read from
 * cache), and what its answer reported: everything (`final`), the prompt and a count of output
 * that stopped when the stream did (`partial`), or nothing.
 */
const attempt = fc
  .record({
    inputEstimate: fc.integer({ min: 1, max: 200_000 }),
    outputLimit: fc.integer({ min: 1, max: 64_000 }),
    inputShare: fc.double({ min: 0, max: 1, noNaN: true }),
    cachedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    outputShare: fc.double({ min: 0, max: 1, noNaN: true }),
    reportedOutputShare: fc.double({ min: 0, max: 1, noNaN: true }),
    report: fc.constantFrom("final", "partial", "nothing"),
  })
  .map((a) => {
    const inputTokens = Math.floor(a.inputEstimate * a.inputShare);
    const billed: NormalizedUsage = {
      inputTokens,
      outputTokens: Math.floor(a.outputLimit * a.outputShare),
      cachedInputTokens: Math.floor(inputTokens * a.cachedShare),
      cacheWriteTokens: 0,
    };
    const reported: ReportedUsage =
      a.report === "final"
        ? { usage: billed, final: true }
        : a.report === "partial"
          ? {
              usage: {
                ...billed,
                outputTokens: Math.floor(billed.outputTokens * a.reportedOutputShare),
              },
              final: false,
            }
          : { usage: null, final: a.reportedOutputShare < 0.5 };
    return {
      worstCase: { inputTokens: a.inputEstimate, outputTokens: a.outputLimit },
      billed,
      reported,
    };
  });

const request = { requestId: "req-1", client: { id: "team" } } as ClientRequest;
const silentLogger = { error: () => undefined } as never;

describe("settleSpend (rule B8)", () => {
  it("books no less than the upstream billed, and exactly the final usage when there is one", async () => {
    await fc.assert(
      fc.asyncProperty(price, attempt, async (priced, { worstCase, billed, reported }) => {
        const ledger = createSpendLedger({ store: createMemorySpendStore() });
        const target = {
          group: { price: priced },
          connection: { config: { id: "router" } },
          model: "m",
          rung: "cheap",
        } as unknown as DispatchTarget;
        // Reserved as the gateway reserves: every input token at its dearest price, which may be
        // a cache read when a price list makes that dearer than plain input.
        const scan = {
          inputTokens: worstCase.inputTokens,
          requestedOutputTokens: worstCase.outputTokens,
          choices: 1,
          cacheControl: false,
        };
        const reserved = await ledger.reserve({
          rung: "cheap",
          connectionId: "router",
          model: "m",
          requestId: request.requestId,
          maxCostUsd: microToUsd(priceWorstCase(scan, priced).costMicroUsd),
        });
        if (isRefusal(reserved)) throw new Error("an unbudgeted rung refused");
        const deps = { ledger, logger: silentLogger } as Parameters<typeof settleSpend>[0];
        const cost = await settleSpend(deps, target, reserved, reported, request, worstCase);
        const booked = usdToMicro(Number(cost));
        const bill = costOf(billed, priced);
        expect(booked).toBeGreaterThanOrEqual(bill);
        if (reported.final && reported.usage) expect(booked).toBe(bill);
        if (reported.usage === null) expect(booked).toBe(reserved.amountMicroUsd);
        const [record] = await ledger.records();
        expect(record?.costMicroUsd).toBe(booked);
      }),
      {
        numRuns: 500,
        // A cache read dearer than plain input, no usage reported: the reservation must have
        // priced the prompt as a cache read for its amount to cover the bill.
        examples: [
          [
            { inputPerMTok: 0, outputPerMTok: 0, cachedInputPerMTok: 0.001 },
            {
              worstCase: { inputTokens: 3, outputTokens: 1 },
              billed: {
                inputTokens: 2,
                outputTokens: 0,
                cachedInputTokens: 1,
                cacheWriteTokens: 0,
              },
              reported: { usage: null, final: true },
            },
          ],
        ],
      },
    );
  });
});
