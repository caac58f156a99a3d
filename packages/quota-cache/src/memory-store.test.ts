import { createMemoryQuotaStore } from "./memory-store";
import { describeQuotaStoreContract } from "./store-contract";

describeQuotaStoreContract("memory", { create: async () => createMemoryQuotaStore() });
