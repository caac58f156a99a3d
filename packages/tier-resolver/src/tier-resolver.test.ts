import { type ModelPrice, modelPrices } from "@planfirst/billing-catalog";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ECONOMIC_TIERS } from "./economic-tier";
import { classifyTier, createTierResolver } from "./tier-resolver";
import { TierResolverError } from "./tier-resolver-error";

function price(
  provider: string,
  model: string,
  inputPerMTok: number,
  outputPerMTok: number,
  extra: Partial<ModelPrice> = {},
): ModelPrice {
  return { provider, model, inputPerMTok, outputPerMTok, ...extra };
}

const prices: ModelPrice[] = [
  price("openrouter", "qwen/qwen3-coder", 0.2, 0.8),
  price("openrouter", "anthropic/claude-sonnet-4.5", 3, 15),
  price("openrouter", "meta/llama-free", 0, 0),
  price("groq", "llama-3.3-70b", 0.59, 0.79, { free: true }),
  price("deepseek", "deepseek-chat", 1.0, 1.1),
  price("openai", "gpt-5", 1.25, 10),
];

describe("createTierResolver", () => {
  it("T1 a provider listed as free, a zero price or a free flag is free", () => {
    const resolver = createTierResolver({ prices, freeProviders: ["Ollama"] });
    expect(resolver.classifyTier("ollama", "qwen2.5-coder:7b")).toMatchObject({
      tier: "free",
      matchedBy: "T1",
    });
    expect(resolver.classifyTier("openrouter", "meta/llama-free")).toMatchObject({
      tier: "free",
      inputPerMTok: 0,
    });
    expect(resolver.classifyTier("groq", "llama-3.3-70b")).toMatchObject({
      tier: "free",
      matchedBy: "T1",
    });
  });

  it("T2 operator overrides win over prices: provider-wide or model glob, case-insensitive", () => {
    const resolver = createTierResolver({
      prices,
      freeProviders: ["groq"],
      overrides: [
        { provider: "OpenRouter", model: "Qwen/*-coder", tier: "premium" },
        { provider: "openrouter", model: "anthropic/claude-sonnet-4.?", tier: "cheap" },
        { provider: "groq", tier: "premium" },
        { provider: "openai", model: "gpt-5", tier: "free" },
        { provider: "openai", tier: "cheap" },
      ],
    });
    expect(resolver.classifyTier("openrouter", "qwen/qwen3-coder")).toMatchObject({
      tier: "premium",
      matchedBy: "T2",
    });
    expect(resolver.classifyTier("openrouter", "anthropic/claude-sonnet-4.5").tier).toBe("cheap");
    expect(resolver.classifyTier("openrouter", "anthropic/claude-sonnet-4.50").tier).toBe(
      "premium",
    );
    expect(resolver.classifyTier("GROQ", "anything").tier).toBe("premium");
    expect(resolver.classifyTier("openai", "GPT-5").tier).toBe("free");
    expect(resolver.classifyTier("openai", "gpt-5-mini")).toMatchObject({
      tier: "cheap",
      matchedBy: "T2",
    });
    expect(resolver.classifyTier("deepseek", "deepseek-chat").matchedBy).toBe("T3");
  });

  it("T2 an exact model override beats a glob, and globs apply in list order", () => {
    const resolver = createTierResolver({
      prices,
      overrides: [
        { provider: "openrouter", model: "*", tier: "premium" },
        { provider: "openrouter", model: "qwen/*", tier: "free" },
        { provider: "openrouter", model: "qwen/qwen3-coder", tier: "cheap" },
      ],
    });
    expect(resolver.classifyTier("openrouter", "qwen/qwen3-coder").tier).toBe("cheap");
    expect(resolver.classifyTier("openrouter", "qwen/other").tier).toBe("premium");
  });

  it("T2 glob metacharacters other than * and ? match literally", () => {
    const resolver = createTierResolver({
      prices: [],
      overrides: [{ provider: "ollama", model: "qwen2.5-coder:*", tier: "free" }],
    });
    expect(resolver.classifyTier("ollama", "qwen2.5-coder:7b").tier).toBe("free");
    expect(resolver.classifyTier("ollama", "qwen2x5-coder:7b").tier).toBe("premium");
  });

  it("T3 input price at or below cheapMaxInputPerMTok is cheap, above is premium (default 1.0)", () => {
    const resolver = createTierResolver({ prices });
    expect(resolver.classifyTier("deepseek", "deepseek-chat")).toMatchObject({
      tier: "cheap",
      matchedBy: "T3",
      inputPerMTok: 1,
      outputPerMTok: 1.1,
    });
    expect(resolver.classifyTier("openai", "gpt-5")).toMatchObject({
      tier: "premium",
      inputPerMTok: 1.25,
    });
    const stricter = createTierResolver({ prices, cheapMaxInputPerMTok: 0.5 });
    expect(stricter.classifyTier("deepseek", "deepseek-chat").tier).toBe("premium");
    expect(stricter.classifyTier("openrouter", "qwen/qwen3-coder").tier).toBe("cheap");
  });

  it("T4 an unpriced model is premium with reason unpriced, never a throw", () => {
    const resolver = createTierResolver({ prices });
    for (const [provider, model] of [
      ["newco", "x"],
      ["openai", "gpt-unknown"],
      ["", ""],
    ] as const) {
      const verdict = resolver.classifyTier(provider, model);
      expect(verdict).toMatchObject({ tier: "premium", matchedBy: "T4" });
      expect(verdict.reason).toMatch(/unpriced/);
      expect(verdict.inputPerMTok).toBeUndefined();
    }
  });

  it("a later price for the same model replaces an earlier one", () => {
    const resolver = createTierResolver({
      prices: [...prices, price("OpenAI", "GPT-5", 0.1, 0.4)],
    });
    expect(resolver.classifyTier("openai", "gpt-5")).toMatchObject({
      tier: "cheap",
      inputPerMTok: 0.1,
    });
  });

  it("rejects unusable options with the path and the allowed values", () => {
    expect(() => createTierResolver({ cheapMaxInputPerMTok: Number.NaN })).toThrow(
      TierResolverError,
    );
    try {
      createTierResolver({ overrides: [{ provider: "x", tier: "cheapest" as never }] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TierResolverError);
      expect(error).toMatchObject({
        name: "TierResolverError",
        code: "invalid_option",
        path: "overrides[0].tier",
        allowed: "free, cheap, premium",
      });
    }
    expect(() => createTierResolver({ overrides: [{ provider: " ", tier: "free" }] })).toThrow(
      /overrides\[0\]\.provider/,
    );
  });
});

describe("classifyTier", () => {
  it("uses the bundled catalog by default", () => {
    const bundled = createTierResolver({ prices: modelPrices });
    for (const { provider, model } of modelPrices) {
      expect(classifyTier(provider, model)).toEqual(bundled.classifyTier(provider, model));
    }
    expect(classifyTier("no-such-provider", "no-such-model").matchedBy).toBe("T4");
  });
});

describe("tier properties", () => {
  it("T1–T4 agree with a direct reading of the rules on random prices and overrides", () => {
    const providers = ["openrouter", "groq", "OpenAI"];
    const models = ["a", "ab", "b-1", "B-2"];
    const priceArb = fc.record({
      provider: fc.constantFrom(...providers),
      model: fc.constantFrom(...models),
      inputPerMTok: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 20, noNaN: true })),
      outputPerMTok: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 40, noNaN: true })),
      free: fc.option(fc.boolean(), { nil: undefined }),
    });
    const overrideArb = fc.record(
      {
        provider: fc.constantFrom(...providers),
        model: fc.constantFrom("a", "a*", "?-1", "b*", "*"),
        tier: fc.constantFrom(...ECONOMIC_TIERS),
      },
      { requiredKeys: ["provider", "tier"] },
    );
    fc.assert(
      fc.property(
        fc.array(priceArb, { maxLength: 10 }),
        fc.array(overrideArb, { maxLength: 4 }),
        fc.subarray(providers),
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.constantFrom(...providers),
        fc.constantFrom(...models),
        (priceList, overrides, freeProviders, cheapMaxInputPerMTok, provider, model) => {
          const verdict = createTierResolver({
            prices: priceList.map(({ free, ...rest }) =>
              free === undefined ? rest : { ...rest, free },
            ),
            overrides,
            freeProviders,
            cheapMaxInputPerMTok,
          }).classifyTier(provider, model);
          const same = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
          const glob = (g: string) =>
            new RegExp(`^${g.toLowerCase().replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
          const mine = overrides.filter((o) => same(o.provider, provider));
          const override =
            mine.find((o) => o.model !== undefined && same(o.model, model)) ??
            mine.find((o) => o.model !== undefined && glob(o.model).test(model.toLowerCase())) ??
            mine.find((o) => o.model === undefined);
          if (override) {
            expect(verdict).toMatchObject({ tier: override.tier, matchedBy: "T2" });
            return;
          }
          if (freeProviders.some((p) => same(p, provider))) {
            expect(verdict).toMatchObject({ tier: "free", matchedBy: "T1" });
            return;
          }
          const found = priceList
            .filter((p) => same(p.provider, provider) && same(p.model, model))
            .at(-1);
          if (!found) {
            expect(verdict).toMatchObject({ tier: "premium", matchedBy: "T4" });
          } else if (found.free || (found.inputPerMTok === 0 && found.outputPerMTok === 0)) {
            expect(verdict).toMatchObject({ tier: "free", matchedBy: "T1" });
          } else {
            expect(verdict.tier).toBe(
              found.inputPerMTok <= cheapMaxInputPerMTok ? "cheap" : "premium",
            );
            expect(verdict.inputPerMTok).toBe(found.inputPerMTok);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
