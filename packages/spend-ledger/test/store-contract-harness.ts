import {
  createSpendLedger,
  isRefusal,
  type Reservation,
  type ReservationRefusal,
  type SpendLedger,
  type SpendLedgerOptions,
  type SpendStore,
} from "../src/index";

/** A store under test and, when the store is shared, a way to open another handle on its data. */
export interface StoreUnderTest {
  store: SpendStore;
  /** Opens a second store on the same data (another connection, file handle or replica). */
  openPeer(): SpendStore | Promise<SpendStore>;
  /** Removes what the store left behind (temp files). Runs after every store is closed. */
  cleanup?(): void | Promise<void>;
}

/** Midnight UTC of the day the contract's clock starts on (30 November 2026). */
export const dayStartMs = Date.UTC(2026, 10, 30, 0, 0, 0);
export const minuteMs = 60_000;

/** True when `reserve()` admitted. */
export function isReservation(result: Reservation | ReservationRefusal): result is Reservation {
  return !isRefusal(result);
}

/** Reserves `maxCostUsd` on `rung` and fails the test unless it is admitted. */
export async function admitted(
  ledger: SpendLedger,
  rung: string,
  maxCostUsd: number,
  requestId = `req-${Math.random()}`,
): Promise<Reservation> {
  const result = await ledger.reserve({
    rung,
    connectionId: "openai",
    model: "gpt-4.1-mini",
    maxCostUsd,
    requestId,
  });
  if (!isReservation(result)) throw new Error(`expected admission, got ${JSON.stringify(result)}`);
  return result;
}

/** Token counts of a settled request. */
export const usage = { model: "gpt-4.1-mini", inputTokens: 1000, outputTokens: 200 };

/** A reservation request on the cheap rung; cases override what they test. */
export const reserveArgs = {
  rung: "cheap",
  connectionId: "openai",
  model: "gpt-4.1-mini",
  maxCostUsd: 0.01,
  requestId: "req",
};

/** A ledger on a fresh store under test, at `dayStartMs` on its own clock. */
export interface ContractSubject {
  store: SpendStore;
  ledger: SpendLedger;
  /** A ledger with the same options on a second store over the same data. */
  openPeerLedger(): Promise<SpendLedger>;
  /** Moves the ledgers' clock on by `ms`. */
  advance(ms: number): void;
}

/** Opens a {@link ContractSubject}; `options` override the contract's ledger options. */
export type ContractSetup = (options?: Partial<SpendLedgerOptions>) => Promise<ContractSubject>;

/**
 * Opens the stores of a contract's cases and closes them after each case: `setup` opens one,
 * `closeAll` (run after each case) closes every store opened and then cleans up after them.
 */
export function createContractHarness(
  createStoreUnderTest: () => StoreUnderTest | Promise<StoreUnderTest>,
): { setup: ContractSetup; closeAll(): Promise<void> } {
  const opened: SpendStore[] = [];
  const cleanups: Array<() => void | Promise<void>> = [];
  let clockMs = dayStartMs;

  async function closeAll() {
    for (const store of opened.splice(0)) await store.close();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  }

  async function setup(options: Partial<SpendLedgerOptions> = {}) {
    clockMs = dayStartMs;
    const subject = await createStoreUnderTest();
    opened.push(subject.store);
    if (subject.cleanup) cleanups.push(subject.cleanup);
    const ledgerOptions = (store: SpendStore): SpendLedgerOptions => ({
      store,
      budgetsUsd: { cheap: 1, premium: 0 },
      now: () => clockMs,
      reservationTimeoutMs: 10 * minuteMs,
      ...options,
    });
    const ledger = createSpendLedger(ledgerOptions(subject.store));
    await ledger.ready();
    const openPeerLedger = async () => {
      const peer = await subject.openPeer();
      if (peer !== subject.store) opened.push(peer);
      const peerLedger = createSpendLedger(ledgerOptions(peer));
      await peerLedger.ready();
      return peerLedger;
    };
    return {
      store: subject.store,
      ledger,
      openPeerLedger,
      advance: (ms: number) => {
        clockMs += ms;
      },
    };
  }

  return { setup, closeAll };
}
