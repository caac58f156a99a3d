import { costOf, formatUsd, microToUsd, type Reservation } from "@planfirst/spend-ledger";
import type { GatewayDeps } from "../deps";
import type { NormalizedUsage } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import type { ClientRequest } from "./types";

/**
 * Books the real cost of a served request (micro-USD, rounded up) against its reservation and
 * resolves to the receipt's decimal string; "0" when nothing was reserved or the group has no
 * price. No usage reported books the input estimate, since the upstream has billed the prompt.
 * The booking runs off the response path: this resolves once the cost is known, without
 * waiting for the ledger's durable commit (the gateway's `close()` flushes the ledger). A
 * failing ledger is logged, never thrown.
 */
export async function settleSpend(
  deps: Pick<GatewayDeps, "ledger" | "logger">,
  target: DispatchTarget,
  reservation: Reservation | null,
  usage: NormalizedUsage | null,
  request: ClientRequest,
  estimatedInputTokens: number,
): Promise<string> {
  const price = target.group.price;
  if (!reservation || !price) return "0";
  const tokens = usage ?? {
    inputTokens: estimatedInputTokens,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
  };
  let costMicro: number;
  try {
    costMicro = costOf(tokens, price);
  } catch {
    costMicro = costOf(
      { inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens },
      price,
    );
  }
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

function logSettleFailure(logger: GatewayDeps["logger"], request: ClientRequest, error: unknown) {
  logger.error({ err: error, requestId: request.requestId }, "settling spend failed");
}
