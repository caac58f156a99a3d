import type { ModelPrice } from "@planfirst/billing-catalog";

/** First-party metered providers, looked up first when a log names a model without a provider. */
const FIRST_PARTY_PROVIDERS = ["anthropic", "openai", "google"];

/**
 * A lookup of what a logged model costs through the provider's own metered API, which is the
 * "all-metered" price of a request and the API-equivalent value of plan usage. Log model ids
 * are matched exactly, then without a trailing date (`claude-sonnet-4-5-20250929`), then
 * without a bracketed suffix (`claude-sonnet-4-5[1m]`). First-party providers win over
 * resellers. Unknown → undefined (the caller reports it; it is never priced at 0).
 */
export function createMeteredPriceLookup(
  prices: readonly ModelPrice[],
): (model: string) => ModelPrice | undefined {
  const byModel = new Map<string, ModelPrice>();
  const rank = (provider: string) => {
    const index = FIRST_PARTY_PROVIDERS.indexOf(provider);
    return index === -1 ? FIRST_PARTY_PROVIDERS.length : index;
  };
  for (const price of prices) {
    if (price.free) continue;
    const key = price.model.toLowerCase();
    const held = byModel.get(key);
    if (!held || rank(price.provider) < rank(held.provider)) byModel.set(key, price);
  }
  const cache = new Map<string, ModelPrice | undefined>();
  return (model) => {
    if (cache.has(model)) return cache.get(model);
    const lower = model.toLowerCase();
    const found =
      byModel.get(lower) ??
      byModel.get(lower.replace(/-\d{8}$/, "")) ??
      byModel.get(lower.replace(/\[[^\]]*\]$/, "").replace(/-\d{8}$/, ""));
    cache.set(model, found);
    return found;
  };
}
