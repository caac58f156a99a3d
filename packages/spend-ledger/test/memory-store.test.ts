import { createMemorySpendStore } from "../src/index";
import { describeSpendStoreContract } from "./store-contract";

describeSpendStoreContract("memory", () => {
  const store = createMemorySpendStore();
  return { store, openPeer: () => store };
});
