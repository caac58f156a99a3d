import type {
  ConnectionBillingClass,
  ConnectionBillingEntry,
  ConnectionOverageBehavior,
} from "@planfirst/billing-catalog";

/** Which rule of ladder.md §2 decided a verdict (rule C6). */
export type ConnectionBillingRule = "C1" | "C2" | "C3" | "C4" | "C5";

/** The connection to classify. `authType` absent or null means "not known" and skips C3. */
export interface ConnectionRef {
  /** Canonical provider id (`claude`, `openai`…), compared case-insensitively. */
  provider: string;
  /** `oauth`, `apikey`, `none` (keyless) or a provider-specific value, compared case-insensitively. */
  authType?: string | null;
}

/**
 * How a connection is billed, which rule decided it (C6) and the curated reason. `unknown`
 * values must be treated as `metered` / `meters-to-paid` by every consumer (C7).
 */
export interface ConnectionBillingVerdict {
  readonly billing: ConnectionBillingClass;
  readonly overage: ConnectionOverageBehavior;
  readonly reason: string;
  readonly matchedBy: ConnectionBillingRule;
}

/** A catalog indexed once; `classify` is O(1) and returns shared, frozen verdicts. */
export interface ConnectionClassifier {
  /** Classify one connection by rules C1–C5 against the indexed catalog. */
  classify(connection: ConnectionRef): ConnectionBillingVerdict;
}

const KEYLESS_VERDICT: ConnectionBillingVerdict = Object.freeze({
  billing: "keyless",
  overage: "hard-stop",
  reason: "no credential: a keyless connection cannot bill anyone",
  matchedBy: "C1",
});

const EMPTY_PROVIDER_VERDICT: ConnectionBillingVerdict = Object.freeze({
  billing: "unknown",
  overage: "unknown",
  reason: "empty provider: cannot be classified, treated as metered",
  matchedBy: "C2",
});

const UNCURATED_VERDICT: ConnectionBillingVerdict = Object.freeze({
  billing: "unknown",
  overage: "unknown",
  reason: "not in the billing catalog: uncurated connections are treated as metered",
  matchedBy: "C5",
});

interface ProviderIndex {
  providerWide: ConnectionBillingVerdict | undefined;
  byAuthType: Map<string, ConnectionBillingVerdict>;
}

function verdictOf(
  entry: ConnectionBillingEntry,
  matchedBy: ConnectionBillingRule,
): ConnectionBillingVerdict {
  return Object.freeze({
    billing: entry.billing,
    overage: entry.overage,
    reason: entry.reason,
    matchedBy,
  });
}

function indexCatalog(catalog: readonly ConnectionBillingEntry[]): Map<string, ProviderIndex> {
  const index = new Map<string, ProviderIndex>();
  for (const entry of catalog) {
    const provider = entry.provider.toLowerCase();
    let slot = index.get(provider);
    if (!slot) {
      slot = { providerWide: undefined, byAuthType: new Map() };
      index.set(provider, slot);
    }
    // A later entry with the same key replaces an earlier one, so `[...catalog, ...operator]`
    // applies operator entries on top of the bundled ones.
    if (entry.authType === undefined) slot.providerWide = verdictOf(entry, "C4");
    else slot.byAuthType.set(entry.authType.toLowerCase(), verdictOf(entry, "C3"));
  }
  return index;
}

// Keyed by the catalog array itself: an index lives exactly as long as its catalog does.
const classifiersByCatalog = new WeakMap<readonly ConnectionBillingEntry[], ConnectionClassifier>();

/**
 * Indexes `catalog` (by lowercased provider, then lowercased authType) and returns a classifier
 * whose lookups are O(1). Memoised by the identity of the array: calling it again with the same
 * array returns the same classifier, so treat a catalog array as immutable once passed. When two
 * entries share a (provider, authType) key the later one wins.
 */
export function createConnectionClassifier(
  catalog: readonly ConnectionBillingEntry[],
): ConnectionClassifier {
  const cached = classifiersByCatalog.get(catalog);
  if (cached) return cached;
  const index = indexCatalog(catalog);
  const classifier: ConnectionClassifier = {
    classify({ provider, authType }) {
      const auth = authType == null ? null : authType.toLowerCase();
      if (auth === "none") return KEYLESS_VERDICT;
      if (provider.trim() === "") return EMPTY_PROVIDER_VERDICT;
      const slot = index.get(provider.toLowerCase());
      if (!slot) return UNCURATED_VERDICT;
      if (auth !== null) {
        const exact = slot.byAuthType.get(auth);
        if (exact) return exact;
      }
      return slot.providerWide ?? UNCURATED_VERDICT;
    },
  };
  classifiersByCatalog.set(catalog, classifier);
  return classifier;
}
