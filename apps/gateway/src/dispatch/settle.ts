import {
  costOf,
  formatUsd,
  microToUsd,
  type Reservation,
  type WorstCaseCost,
} from "@planfirst/spend-ledger";
import type { GatewayDeps } from "../deps";
import type { NormalizedUsage } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import type { ClientRequest } from "./types";

/** The tokens a reservation was priced for: the request's input estimate and its output limit. */
export type WorstCaseTokens = Pick<WorstCaseCost, "inputTokens" | "outputTokens">;

/**
 * What an answer reported of its usage: `usage` as reported (null: nothing), and `final` when
 * the answer ended properly, so that `usage` counts all of it. What a stream cut, failed or
 * left by its client reported before it ended counts its prompt at best, and an output count
 * that stopped growing when the stream did.
 */
export interface ReportedUsage {
  readonly usage: NormalizedUsage | null;
  readonly final: boolean;
}

/**
 * Books the cost of an attempt's answer (micro-USD, rounded up) against its reservation and
 * resolves to the receipt's decimal string; "0" when nothing was reserved or the group has no
 * price. The final usage books what it counts. Otherwise the books take the bound the
 * reservation was priced for wherever the answer is silent (rule B8): the upstream bills every
 * token it generated, reported or not (hidden reasoning included), and only the output limit
 * bounds them. So usage reported before an early end books its input and the output limit, and
 * no usage at all books the amount reserved. The books may over-count such an answer; they
 * never under-count it, so a budget is never overspent behind them.
 * The booking runs off the response path: this resolves once the cost is known, without
 * waiting for the ledger's durable commit (the gateway's `close()` flushes the ledger). A
 * failing ledger is logged, never thrown.
 */
export async function settleSpend(
  deps: Pick<GatewayDeps, "ledger" | "logger">,
  target: DispatchTarget,
  reservation: Reservation | null,
  reported: ReportedUsage,
  request: ClientRequest,
  worstCase: WorstCaseTokens,
): Promise<string> {
  const price = target.group.price;
  if (!reservation || !price) return "0";
  const { tokens, costMicro } = bookedCost(reported, worstCase, reservation, price);
  // Not awaited: the client's answer does not wait for the settle's batch to commit. The
  // reservation was durable before the upstream was called, so a settle that fails (or a crash
  // before its batch commits) leaves that reservation held until it expires: the books then
  // over-count this request by its worst case, never under-count it. That is logged here.
  try {
    deps.ledger
      .settle(reservation, microToUsd(costMicro), {
        connectionId: target.connection.config.id,
        model: target.model,
        inputTokens: tokens.inputTokens,
        outputTokens: tokens.outputTokens,
        cachedInputTokens: tokens.cachedInputTokens,
        cacheWriteTokens: tokens.cacheWriteTokens,
        clientKeyId: request.client.id,
      })
      .catch((error: unknown) => logSettleFailure(deps.logger, request, error));
  } catch (error) {
    // A ledger that throws synchronously (an invalid argument) is the same failure.
    logSettleFailure(deps.logger, request, error);
  }
  return formatUsd(costMicro);
}

/** The tokens and the cost booked for an answer that reported `reported` (see `settleSpend`). */
function bookedCost(
  reported: ReportedUsage,
  worstCase: WorstCaseTokens,
  reservation: Reservation,
  price: NonNullable<DispatchTarget["group"]["price"]>,
): { tokens: NormalizedUsage; costMicro: number } {
  const { usage } = reported;
  if (usage === null) {
    const tokens = {
      inputTokens: worstCase.inputTokens,
      outputTokens: worstCase.outputTokens,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
    };
    return { tokens, costMicro: reservation.amountMicroUsd };
  }
  const tokens = reported.final
    ? usage
    : { ...usage, outputTokens: Math.max(usage.outputTokens, worstCase.outputTokens) };
  try {
    return { tokens, costMicro: costOf(tokens, price) };
  } catch {
    const costMicro = costOf(
      { inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens },
      price,
    );
    return { tokens, costMicro };
  }
}

function logSettleFailure(logger: GatewayDeps["logger"], request: ClientRequest, error: unknown) {
  logger.error({ err: error, requestId: request.requestId }, "settling spend failed");
}
