import { type Catalog, connectionEntryKey, modelPriceKey } from "./catalog";

/**
 * Applies operator entries to a catalog without mutating either argument. An override replaces the
 * base entry with the same key, in the base entry's position: (provider, authType) for connections
 * (no authType = provider-wide), (provider, model) for models, both compared case-insensitively.
 * Overrides with new keys are appended in their own order. When an override list repeats a key,
 * its last entry wins.
 */
export function mergeCatalog(base: Catalog, overrides: Partial<Catalog>): Catalog {
  return {
    connections: mergeByKey(base.connections, overrides.connections, connectionEntryKey),
    models: mergeByKey(base.models, overrides.models, modelPriceKey),
  };
}

function mergeByKey<T>(
  base: readonly T[],
  overrides: readonly T[] | undefined,
  keyOf: (entry: T) => string,
): T[] {
  if (!overrides || overrides.length === 0) return [...base];
  const overrideByKey = new Map<string, T>();
  for (const entry of overrides) overrideByKey.set(keyOf(entry), entry);
  const merged: T[] = [];
  const seen = new Set<string>();
  for (const entry of base) {
    const key = keyOf(entry);
    merged.push(overrideByKey.get(key) ?? entry);
    seen.add(key);
  }
  for (const [key, entry] of overrideByKey) {
    if (!seen.has(key)) merged.push(entry);
  }
  return merged;
}
