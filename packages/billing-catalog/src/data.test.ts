import {
  connectionBillingCatalog,
  modelPrices,
  modelPricesReadOn,
} from "@planfirst/billing-catalog";
import { describe, expect, it } from "vitest";
import connectionsFile from "../data/connections.json" with { type: "json" };
import modelsFile from "../data/models.json" with { type: "json" };

const meteredProviders = [
  "anthropic",
  "openai",
  "google",
  "openrouter",
  "groq",
  "deepseek",
  "mistral",
  "xai",
];
const planConnections: [provider: string, authType: string | undefined][] = [
  ["claude", "oauth"],
  ["anthropic", "oauth"],
  ["codex", "oauth"],
  ["github-copilot", "oauth"],
  ["gemini-code-assist", "oauth"],
  ["antigravity", "oauth"],
  ["cursor", undefined],
  ["zai", undefined],
  ["kimi", undefined],
];
const today = new Date().toISOString().slice(0, 10);

function entryFor(provider: string, authType?: string) {
  return connectionBillingCatalog.find((e) => e.provider === provider && e.authType === authType);
}

describe("shipped connection entries", () => {
  it.each(planConnections)(
    "curates the plan connection %s/%s as a subscription",
    (provider, authType) => {
      expect(entryFor(provider, authType)?.billing).toBe("subscription");
    },
  );

  it.each(meteredProviders)(
    "curates %s provider-wide as metered, billing past any limit",
    (provider) => {
      expect(entryFor(provider)).toMatchObject({ billing: "metered", overage: "meters-to-paid" });
    },
  );

  it("treats both spellings of the Claude plan login alike, and a Claude API key as metered", () => {
    const claude = entryFor("claude", "oauth")!;
    const anthropic = entryFor("anthropic", "oauth")!;
    expect([anthropic.billing, anthropic.overage]).toEqual([claude.billing, claude.overage]);
    expect(entryFor("claude")?.billing).toBe("metered");
  });

  it("marks overage unknown wherever an account setting can turn on paid overage", () => {
    for (const [provider, authType] of [
      ["claude", "oauth"],
      ["github-copilot", "oauth"],
      ["cursor", undefined],
      ["codex", "oauth"],
    ] as const) {
      expect(entryFor(provider, authType)?.overage).toBe("unknown");
    }
  });

  it("gives every entry a reason, sources and a review date that is not in the future", () => {
    for (const entry of connectionBillingCatalog) {
      expect(entry.reason.length, entry.provider).toBeGreaterThan(40);
      expect(entry.sources.length, entry.provider).toBeGreaterThan(0);
      expect(entry.reviewed <= today, `${entry.provider} reviewed ${entry.reviewed}`).toBe(true);
    }
  });
});

describe("shipped model prices", () => {
  it("prices at least 40 models", () => {
    expect(modelPrices.length).toBeGreaterThanOrEqual(40);
  });

  it.each(meteredProviders)(
    "prices models of %s and names the page they were read from",
    (provider) => {
      expect(modelPrices.some((m) => m.provider === provider)).toBe(true);
      expect(
        modelsFile.sources[provider as keyof typeof modelsFile.sources]?.length,
      ).toBeGreaterThan(0);
    },
  );

  it("prices every model id of the architecture's example config", () => {
    for (const [provider, model] of [
      ["anthropic", "claude-sonnet-4-5"],
      ["anthropic", "claude-opus-4-1"],
      ["openrouter", "qwen/qwen3-coder"],
      ["openrouter", "anthropic/claude-sonnet-4.5"],
    ]) {
      expect(
        modelPrices.find((m) => m.provider === provider && m.model === model),
        model,
      ).toBeDefined();
    }
  });

  it("flags exactly the zero-priced models as free, OpenRouter :free ones among them", () => {
    const free = modelPrices.filter((m) => m.free);
    expect(free.filter((m) => m.model.endsWith(":free")).length).toBeGreaterThanOrEqual(3);
    for (const m of modelPrices) {
      const zero = m.inputPerMTok === 0 && m.outputPerMTok === 0;
      expect(m.free === true, m.model).toBe(zero);
    }
  });

  it("prices cache reads below fresh input", () => {
    for (const m of modelPrices) {
      if (m.cachedInputPerMTok !== undefined) {
        expect(m.cachedInputPerMTok, m.model).toBeLessThan(m.inputPerMTok);
      }
    }
  });

  it("was read on a date that is not in the future", () => {
    expect(modelPricesReadOn <= today).toBe(true);
  });
});

describe("data files", () => {
  it("point editors at the shipped JSON Schema", () => {
    expect(connectionsFile.$schema).toBe("../schema.json");
    expect(modelsFile.$schema).toBe("../schema.json");
  });
});
