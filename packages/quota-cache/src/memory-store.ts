import { createLocalLeases, createRecordMirror, type QuotaStore } from "./quota-store";

/**
 * A store that lives in this process only: the default of the cache and the cooldown book, and
 * the store for tests. State is lost on restart; nothing is shared between processes.
 */
export function createMemoryQuotaStore(): QuotaStore {
  const mirror = createRecordMirror();
  const leases = createLocalLeases();
  return {
    list: (bucket, connectionId) => mirror.list(bucket, connectionId),
    connectionIds: (bucket) => mirror.connectionIds(bucket),
    put: (bucket, record) => mirror.apply(bucket, record),
    remove: (bucket, connectionId, key) => {
      mirror.delete(bucket, connectionId, key);
    },
    acquireLease: async (name, holder, ttlMs, nowMs) => leases.acquire(name, holder, ttlMs, nowMs),
    releaseLease: async (name, holder) => leases.release(name, holder),
    ready: async () => {},
    close: async () => {},
  };
}
