import {
  type Catalog,
  type ConnectionBillingEntry,
  type ModelPrice,
  mergeCatalog,
} from "@planfirst/billing-catalog";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

function connection(
  provider: string,
  authType?: string,
  reason = "catalog",
): ConnectionBillingEntry {
  return {
    provider,
    ...(authType === undefined ? {} : { authType }),
    billing: "metered",
    overage: "meters-to-paid",
    reason,
    sources: ["https://example.com/pricing"],
    reviewed: "2026-11-01",
  };
}
function price(provider: string, model: string, inputPerMTok = 1): ModelPrice {
  return { provider, model, inputPerMTok, outputPerMTok: inputPerMTok * 4 };
}

const base: Catalog = {
  connections: [connection("claude", "oauth"), connection("anthropic"), connection("openai")],
  models: [price("anthropic", "claude-sonnet-4-5", 3), price("openai", "gpt-5.4", 2.5)],
};

describe("mergeCatalog", () => {
  it("replaces the catalog entry with the same key in its original position", () => {
    const operator = {
      ...connection("anthropic", undefined, "operator"),
      billing: "subscription" as const,
    };
    const merged = mergeCatalog(base, { connections: [operator] });
    expect(merged.connections.map((c) => c.reason)).toEqual(["catalog", "operator", "catalog"]);
    expect(merged.connections[1]).toBe(operator);
  });

  it("appends entries with new keys after the catalog's, in the operator's order", () => {
    const merged = mergeCatalog(base, {
      models: [price("openrouter", "qwen/qwen3-coder", 0.2), price("groq", "qwen/qwen3-32b", 0.29)],
    });
    expect(merged.models.map((m) => m.model)).toEqual([
      "claude-sonnet-4-5",
      "gpt-5.4",
      "qwen/qwen3-coder",
      "qwen/qwen3-32b",
    ]);
  });

  it("matches keys case-insensitively", () => {
    const merged = mergeCatalog(base, {
      connections: [connection("Claude", "OAUTH", "operator")],
      models: [price("OpenAI", "GPT-5.4", 9)],
    });
    expect(merged.connections).toHaveLength(3);
    expect(merged.connections[0]?.reason).toBe("operator");
    expect(merged.models).toHaveLength(2);
    expect(merged.models[1]?.inputPerMTok).toBe(9);
  });

  it("keeps a provider-wide entry and an authType entry of the same provider apart", () => {
    const merged = mergeCatalog(base, {
      connections: [connection("claude", undefined, "operator")],
    });
    expect(merged.connections.map((c) => [c.provider, c.authType ?? null, c.reason])).toEqual([
      ["claude", "oauth", "catalog"],
      ["anthropic", null, "catalog"],
      ["openai", null, "catalog"],
      ["claude", null, "operator"],
    ]);
  });

  it("leaves both arguments unchanged and returns the base entries when there are no overrides", () => {
    const snapshot = structuredClone(base);
    const overrides = { models: [price("openai", "gpt-5.4", 7)] };
    mergeCatalog(base, overrides);
    expect(base).toEqual(snapshot);
    expect(mergeCatalog(base, {})).toEqual(base);
  });

  it("property: every key appears once, overrides win, and base order is kept", () => {
    const key = fc.record({
      provider: fc.constantFrom("a", "A", "b", "c"),
      model: fc.constantFrom("x", "X", "y", "z"),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { selector: (k) => `${k.provider}/${k.model}`.toLowerCase() }),
        fc.array(key),
        (baseKeys, overrideKeys) => {
          const baseModels = baseKeys.map((k) => price(k.provider, k.model, 1));
          const overrideModels = overrideKeys.map((k, i) => price(k.provider, k.model, 100 + i));
          const merged = mergeCatalog(
            { connections: [], models: baseModels },
            { models: overrideModels },
          ).models;
          const lower = (m: ModelPrice) => `${m.provider}/${m.model}`.toLowerCase();
          expect(new Set(merged.map(lower)).size).toBe(merged.length);
          expect(merged.slice(0, baseModels.length).map(lower)).toEqual(baseModels.map(lower));
          for (const [i, o] of overrideModels.entries()) {
            const lastForKey = overrideModels.findLastIndex((other) => lower(other) === lower(o));
            if (lastForKey !== i) continue;
            expect(merged.find((m) => lower(m) === lower(o))).toBe(o);
          }
        },
      ),
    );
  });
});
