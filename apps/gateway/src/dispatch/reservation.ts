import {
  microToUsd,
  priceWorstCase,
  type Reservation,
  scanWorstCase,
  type WorstCaseScan,
} from "@planfirst/spend-ledger";
import { isPaidRung } from "@planfirst/subscription-ladder";
import type { GatewayLedger } from "../deps";
import { clientWireOf } from "../protocols";
import type { DispatchTarget } from "../routing/build-pool";
import type { WorstCaseTokens } from "./settle";
import type { ClientRequest } from "./types";
import type { UpstreamBody } from "./upstream-body";

/**
 * A reservation held for one attempt. Whoever serves the request takes it over with
 * `handOff()` (the settle path books it); otherwise `release()`, called in the dispatcher's
 * one `finally`, gives it back. Releasing twice, or after a hand-off, does nothing.
 */
export class ReservationHold {
  private open: boolean;

  constructor(
    private readonly ledger: { release(reservation: Reservation): Promise<unknown> },
    /** Null on a free rung, or a paid rung without a price and without a budget. */
    readonly reservation: Reservation | null,
    /**
     * The tokens the reservation was priced for (the input estimate and the output limit),
     * booked in place of what an answer did not report (see `settleSpend`).
     */
    readonly worstCase: WorstCaseTokens,
  ) {
    this.open = reservation !== null;
  }

  /** The serving path now owns the reservation and will settle it. */
  handOff(): Reservation | null {
    this.open = false;
    return this.reservation;
  }

  /** Gives the reservation back unless it was handed off; never throws. */
  release(): void {
    if (!this.open || !this.reservation) return;
    this.open = false;
    void this.ledger.release(this.reservation).catch(ignoreError);
  }
}

/**
 * Why a paid target was skipped before anything was sent: a model without a price where a
 * budget applies (its spend could not be bounded), the rung's budget, or the client key's.
 */
type AdmissionRefusal =
  | "unpriced_on_budgeted_rung"
  | "unpriced_on_key_budget"
  | "budget_refused"
  | "key_budget_refused";

/** What reserving for one attempt gave: a hold, or the outcome that skips the target. */
export type Admission =
  | { readonly hold: ReservationHold; readonly refused: null }
  | { readonly hold: null; readonly refused: AdmissionRefusal };

const NO_HOLD_TOKENS: WorstCaseTokens = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/** The admission of a free rung: nothing reserved, nothing to release (shared, immutable). */
export const FREE_ADMISSION: Admission = {
  hold: new ReservationHold({ release: () => Promise.resolve() }, null, NO_HOLD_TOKENS),
  refused: null,
};

/**
 * Worst-case scans by the body they read: the body a target is sent (so a fall-through to a
 * target sent the same body prices the same scan), or the client's request when that body
 * could not be made. Each entry goes with its body.
 */
const scans = new WeakMap<UpstreamBody | ClientRequest, WorstCaseScan>();

/**
 * The worst-case scan for `request` sent as `sent`: its input read from the text that goes
 * upstream, which the attempt encodes anyway, so the client's body is not serialised again
 * (that and the first read of the new string took about 3 ms of the event loop for a 548 KB
 * agent turn); the output limit and `n` from the client's body. Without `sent` (the target
 * cannot carry the body, or has no connector: its attempt then skips it and gives the
 * reservation back), the client's body is serialised and read.
 */
function worstCaseScanOf(request: ClientRequest, sent: UpstreamBody | undefined): WorstCaseScan {
  const read = sent ?? request;
  let scanned = scans.get(read);
  if (scanned === undefined) {
    scanned = scanWorstCase({
      body: request.body,
      protocol: clientWireOf(request.protocol).costScan,
      sentText: sent?.text,
    });
    scans.set(read, scanned);
  }
  return scanned;
}

const UNPRICED_ON_KEY_BUDGET: Admission = { hold: null, refused: "unpriced_on_key_budget" };
const KEY_BUDGET_REFUSED: Admission = { hold: null, refused: "key_budget_refused" };

/**
 * Reserves the worst-case cost of `request` on `target` before anything is sent (ladder.md §7):
 * free rungs reserve nothing; a paid rung whose model has no price is refused when the rung or
 * the client key has a budget (its spend could not be bounded, so it must not bill by surprise)
 * and let through unreserved when neither has one; a reservation the ledger refuses skips the
 * target. A key with a budget reserves against it too, before the rung (rule B7); a key whose
 * budget is spent skips every paid target without a call to the store, as a spent rung is
 * skipped (B4). The worst case reads the body `sentBody` gives, the one the attempt will send
 * (see {@link worstCaseScanOf}); it is made only for a priced target that gets this far.
 */
export async function admit(
  ledger: Pick<GatewayLedger, "reserve" | "release" | "budgetUsd" | "isScopeExhausted">,
  target: DispatchTarget,
  request: ClientRequest,
  sentBody: () => UpstreamBody | undefined,
): Promise<Admission> {
  if (!isPaidRung(target.rung)) return FREE_ADMISSION;
  const keyBudget = request.client.budget;
  const price = target.group.price;
  if (!price) {
    if (keyBudget) return UNPRICED_ON_KEY_BUDGET;
    if (ledger.budgetUsd(target.rung) !== undefined) {
      return { hold: null, refused: "unpriced_on_budgeted_rung" };
    }
    return FREE_ADMISSION;
  }
  if (keyBudget && ledger.isScopeExhausted(keyBudget)) return KEY_BUDGET_REFUSED;
  const estimate = priceWorstCase(worstCaseScanOf(request, sentBody()), price);
  const reserved = await ledger.reserve({
    rung: target.rung,
    connectionId: target.connection.config.id,
    model: target.model,
    maxCostUsd: microToUsd(estimate.costMicroUsd),
    requestId: request.requestId,
    scopes: keyBudget ? [keyBudget] : undefined,
  });
  if ("refused" in reserved) {
    return reserved.scope === undefined
      ? { hold: null, refused: "budget_refused" }
      : KEY_BUDGET_REFUSED;
  }
  return { hold: new ReservationHold(ledger, reserved, estimate), refused: null };
}

function ignoreError(): void {}
