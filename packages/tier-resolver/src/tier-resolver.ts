import { type ModelPrice, modelPrices } from "@planfirst/billing-catalog";
import { type EconomicTier, isEconomicTier, type TierVerdict } from "./economic-tier";
import { TierResolverError } from "./tier-resolver-error";

/**
 * An operator's tier decision (rule T2). Without `model` it covers every model of the provider;
 * `model` is a glob where `*` matches any run of characters and `?` one character. Provider and
 * model compare case-insensitively.
 */
export interface TierOverride {
  provider: string;
  model?: string;
  tier: EconomicTier;
}

/** Options of `createTierResolver`. */
export interface TierResolverOptions {
  /** Model prices (USD per 1M tokens); defaults to the bundled catalog. A later duplicate wins. */
  prices?: readonly ModelPrice[];
  /** Highest input price, in USD per 1M tokens, that still counts as `cheap` (T3). Default 1.0. */
  cheapMaxInputPerMTok?: number;
  /** Provider ids whose every model is free, priced or not (T1). Default none. */
  freeProviders?: readonly string[];
  /** Operator overrides (T2); they win over prices and free providers. */
  overrides?: readonly TierOverride[];
}

/** A tier classifier built once from prices and overrides; lookups are O(1) in the catalog size. */
export interface TierResolver {
  /**
   * Tier of `model` on `provider` by rules T1–T4: operator overrides first (an exact model beats a
   * glob, globs in list order, then a provider-wide override), then free providers and free
   * prices, then the cheap threshold on the input price; an unpriced model is `premium`. Never throws.
   */
  classifyTier(provider: string, model: string): TierVerdict;
}

const DEFAULT_CHEAP_MAX_INPUT_PER_MTOK = 1.0;

interface CompiledGlob {
  pattern: RegExp;
  verdict: TierVerdict;
}

interface ProviderOverrides {
  exact: Map<string, TierVerdict>;
  globs: CompiledGlob[];
  providerWide: TierVerdict | undefined;
}

function compileGlob(glob: string): RegExp {
  const body = glob
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "s");
}

function formatUsd(perMTok: number): string {
  return `$${perMTok.toFixed(2)}/MTok`;
}

function validateOptions(options: TierResolverOptions): void {
  const threshold = options.cheapMaxInputPerMTok;
  if (threshold !== undefined && !(Number.isFinite(threshold) && threshold >= 0)) {
    throw new TierResolverError({
      code: "invalid_option",
      path: "cheapMaxInputPerMTok",
      allowed: "a finite number ≥ 0 (USD per 1M input tokens)",
      message: `got ${String(threshold)}`,
    });
  }
  options.overrides?.forEach((override, i) => {
    if (!isEconomicTier(override.tier)) {
      throw new TierResolverError({
        code: "invalid_option",
        path: `overrides[${i}].tier`,
        allowed: "free, cheap, premium",
        message: `got ${JSON.stringify(override.tier)}`,
      });
    }
    if (typeof override.provider !== "string" || override.provider.trim() === "") {
      throw new TierResolverError({
        code: "invalid_option",
        path: `overrides[${i}].provider`,
        allowed: "a non-empty provider id",
        message: `got ${JSON.stringify(override.provider)}`,
      });
    }
  });
}

function indexOverrides(overrides: readonly TierOverride[]): Map<string, ProviderOverrides> {
  const index = new Map<string, ProviderOverrides>();
  for (const { provider, model, tier } of overrides) {
    const key = provider.toLowerCase();
    let slot = index.get(key);
    if (!slot) {
      slot = { exact: new Map(), globs: [], providerWide: undefined };
      index.set(key, slot);
    }
    if (model === undefined) {
      slot.providerWide ??= { tier, matchedBy: "T2", reason: `operator override for ${provider}` };
    } else if (/[*?]/.test(model)) {
      slot.globs.push({
        pattern: compileGlob(model),
        verdict: { tier, matchedBy: "T2", reason: `operator override ${provider}/${model}` },
      });
    } else if (!slot.exact.has(model.toLowerCase())) {
      slot.exact.set(model.toLowerCase(), {
        tier,
        matchedBy: "T2",
        reason: `operator override ${provider}/${model}`,
      });
    }
  }
  return index;
}

function priceVerdict(price: ModelPrice, cheapMaxInputPerMTok: number): TierVerdict {
  const prices = { inputPerMTok: price.inputPerMTok, outputPerMTok: price.outputPerMTok };
  if (price.free === true || (price.inputPerMTok === 0 && price.outputPerMTok === 0)) {
    return { tier: "free", matchedBy: "T1", reason: "free model", ...prices };
  }
  if (price.inputPerMTok <= cheapMaxInputPerMTok) {
    return {
      tier: "cheap",
      matchedBy: "T3",
      reason: `input ${formatUsd(price.inputPerMTok)} ≤ ${formatUsd(cheapMaxInputPerMTok)} cheap threshold`,
      ...prices,
    };
  }
  return {
    tier: "premium",
    matchedBy: "T3",
    reason: `input ${formatUsd(price.inputPerMTok)} > ${formatUsd(cheapMaxInputPerMTok)} cheap threshold`,
    ...prices,
  };
}

/**
 * Builds a tier resolver (rules T1–T4 of ladder.md §3). Prices, free providers and overrides are
 * indexed and globs compiled here, once; `classifyTier` then does O(1) map lookups plus the
 * provider's own override globs, and returns shared verdict objects (do not mutate them).
 *
 * @throws TierResolverError when `cheapMaxInputPerMTok` is not a finite number ≥ 0, or an
 *   override has an empty provider or a tier other than free, cheap, premium.
 */
export function createTierResolver(options: TierResolverOptions = {}): TierResolver {
  validateOptions(options);
  const cheapMaxInputPerMTok = options.cheapMaxInputPerMTok ?? DEFAULT_CHEAP_MAX_INPUT_PER_MTOK;
  // provider → model → verdict, both lowercased: no key string is built per lookup.
  const priceVerdicts = new Map<string, Map<string, TierVerdict>>();
  for (const price of options.prices ?? modelPrices) {
    const provider = price.provider.toLowerCase();
    let models = priceVerdicts.get(provider);
    if (!models) {
      models = new Map();
      priceVerdicts.set(provider, models);
    }
    models.set(price.model.toLowerCase(), priceVerdict(price, cheapMaxInputPerMTok));
  }
  const freeProviders = new Map<string, TierVerdict>();
  for (const provider of options.freeProviders ?? []) {
    freeProviders.set(provider.toLowerCase(), {
      tier: "free",
      matchedBy: "T1",
      reason: `${provider} is listed as a free provider`,
    });
  }
  const overrides = indexOverrides(options.overrides ?? []);
  const unpriced: TierVerdict = Object.freeze({
    tier: "premium",
    matchedBy: "T4",
    reason: "unpriced: treated as premium",
  });

  return {
    classifyTier(provider, model) {
      const providerKey = provider.toLowerCase();
      const modelKey = model.toLowerCase();
      const override = overrides.get(providerKey);
      if (override) {
        const exact = override.exact.get(modelKey);
        if (exact) return exact;
        for (const glob of override.globs) {
          if (glob.pattern.test(modelKey)) return glob.verdict;
        }
        if (override.providerWide) return override.providerWide;
      }
      const free = freeProviders.get(providerKey);
      if (free) return free;
      return priceVerdicts.get(providerKey)?.get(modelKey) ?? unpriced;
    },
  };
}

// One resolver per bundled price array, built on first use rather than at import.
const bundledResolvers = new WeakMap<readonly ModelPrice[], TierResolver>();

/**
 * Tier of `model` on `provider` against the bundled catalog with default options
 * (`cheapMaxInputPerMTok` 1.0, no free providers, no overrides). See `createTierResolver`.
 */
export function classifyTier(provider: string, model: string): TierVerdict {
  let resolver = bundledResolvers.get(modelPrices);
  if (!resolver) {
    resolver = createTierResolver({ prices: modelPrices });
    bundledResolvers.set(modelPrices, resolver);
  }
  return resolver.classifyTier(provider, model);
}
