import { connectionBillingCatalog } from "@planfirst/billing-catalog";
import { classifyConnectionBilling } from "@planfirst/connection-billing";
import { describe, expect, it } from "vitest";
import { assignRung } from "./assign-rung";
import { testCatalog } from "./ladder-test-support";

const tiers = {
  resolveEconomicTier: (_p: string, model: string) =>
    (model === "small" ? "cheap" : model === "gratis" ? "free" : "premium") as
      | "free"
      | "cheap"
      | "premium",
};
const options = { ...tiers, catalog: testCatalog };

describe("assignRung", () => {
  it("A1 billing decides first: subscription and keyless connections ignore the model's tier", () => {
    const rung = (provider: string, authType: string | null, model: string) =>
      assignRung({ model }, { provider, authType, connectionId: "c" }, options);
    expect(rung("claude", "oauth", "small")).toBe("subscription");
    expect(rung("openrouter", "none", "small")).toBe("keyless");
    expect(rung("ollama", null, "big")).toBe("keyless");
    expect(rung("openrouter", "apikey", "gratis")).toBe("free");
    expect(rung("openrouter", "apikey", "small")).toBe("cheap");
    expect(rung("openrouter", "apikey", "big")).toBe("premium");
  });

  it("A1 C7 an uncurated connection is treated as metered and falls through to the model's tier", () => {
    const connection = { provider: "newco", authType: "oauth", connectionId: "n" };
    expect(assignRung({ model: "small" }, connection, options)).toBe("cheap");
    expect(assignRung({ model: "big" }, connection, options)).toBe("premium");
  });

  it("A2 the same model sits on different rungs through different connections", () => {
    const model = { model: "big" };
    expect(
      assignRung(model, { provider: "claude", authType: "oauth", connectionId: "max" }, options),
    ).toBe("subscription");
    expect(
      assignRung(model, { provider: "claude", authType: "apikey", connectionId: "key" }, options),
    ).toBe("premium");
  });

  it("an unexpected tier from a resolver lands on premium, never a cheaper rung", () => {
    const odd = { catalog: testCatalog, resolveEconomicTier: () => "gold" as never };
    expect(
      assignRung(
        { model: "x" },
        { provider: "openrouter", authType: "apikey", connectionId: "k" },
        odd,
      ),
    ).toBe("premium");
  });

  it("classifies against the bundled catalog by default", () => {
    for (const entry of connectionBillingCatalog) {
      const connection = {
        provider: entry.provider,
        authType: entry.authType ?? null,
        connectionId: "c",
      };
      const verdict = classifyConnectionBilling(connection);
      const expected =
        verdict.billing === "subscription"
          ? "subscription"
          : verdict.billing === "keyless"
            ? "keyless"
            : "premium";
      expect(assignRung({ model: "big" }, connection, tiers)).toBe(expected);
    }
  });
});
