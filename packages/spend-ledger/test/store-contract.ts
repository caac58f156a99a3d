import { afterEach, describe } from "vitest";
import { budgetRulesContract } from "./store-contract-budget-rules";
import { expiryContract } from "./store-contract-expiry";
import { createContractHarness, type StoreUnderTest } from "./store-contract-harness";
import { propertyContract } from "./store-contract-property";
import { pruneContract } from "./store-contract-prune";
import { recordsContract } from "./store-contract-records";
import { budgetScopesContract } from "./store-contract-scopes";
import { settleContract } from "./store-contract-settle";

export type { StoreUnderTest } from "./store-contract-harness";

/**
 * The contract every spend store passes: the ledger's rules (B1, B2, B4, B6), atomic
 * reservations, settle/release idempotency, expiry, windows, records and their pruning, run on a real store.
 * Each topic's cases are in a store-contract-*.ts file of their own; every store runs them all.
 */
export function describeSpendStoreContract(
  name: string,
  createStoreUnderTest: () => StoreUnderTest | Promise<StoreUnderTest>,
): void {
  describe(`${name} spend store contract`, () => {
    const { setup, closeAll } = createContractHarness(createStoreUnderTest);
    afterEach(closeAll);

    budgetRulesContract(setup);
    settleContract(setup);
    expiryContract(setup);
    recordsContract(setup);
    budgetScopesContract(setup);
    propertyContract(setup);
    pruneContract(setup);
  });
}
