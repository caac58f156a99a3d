import {
  type ConnectionBillingEntry,
  connectionBillingCatalog,
  connectionBillingEntrySchema,
} from "@planfirst/billing-catalog";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyConnectionBilling,
  isOverageSafe,
  isPlanIncluded,
} from "./classify-connection-billing";
import { createConnectionClassifier } from "./connection-classifier";

function entry(
  fields: Pick<ConnectionBillingEntry, "provider" | "billing" | "overage"> & {
    authType?: string;
    reason?: string;
  },
): ConnectionBillingEntry {
  return connectionBillingEntrySchema.parse({
    reason: `${fields.provider}/${fields.authType ?? "*"}`,
    sources: ["https://example.com/terms"],
    reviewed: "2026-01-15",
    ...fields,
  });
}

const claudeOauth = entry({
  provider: "claude",
  authType: "oauth",
  billing: "subscription",
  overage: "hard-stop",
  reason: "Claude Max plan",
});
const claudeWide = entry({
  provider: "claude",
  billing: "metered",
  overage: "meters-to-paid",
  reason: "Claude API key",
});
const codexOauth = entry({
  provider: "codex",
  authType: "oauth",
  billing: "subscription",
  overage: "unknown",
});
const catalog = [claudeWide, claudeOauth, codexOauth];

describe("classifyConnectionBilling", () => {
  it("C1 authType none is keyless and hard-stop without consulting the catalog", () => {
    const metered = [entry({ provider: "ollama", billing: "metered", overage: "meters-to-paid" })];
    const verdict = classifyConnectionBilling({ provider: "ollama", authType: "none" }, metered);
    expect(verdict).toMatchObject({ billing: "keyless", overage: "hard-stop", matchedBy: "C1" });
    expect(classifyConnectionBilling({ provider: "", authType: "NONE" }, []).matchedBy).toBe("C1");
  });

  it("C2 an empty provider is unknown", () => {
    for (const provider of ["", "   "]) {
      expect(classifyConnectionBilling({ provider, authType: "oauth" }, catalog)).toMatchObject({
        billing: "unknown",
        overage: "unknown",
        matchedBy: "C2",
      });
    }
  });

  it("C3 the provider and authType entry wins whatever the catalog order", () => {
    for (const order of [catalog, [...catalog].reverse()]) {
      expect(classifyConnectionBilling({ provider: "claude", authType: "oauth" }, order)).toEqual({
        billing: "subscription",
        overage: "hard-stop",
        reason: "Claude Max plan",
        matchedBy: "C3",
      });
    }
  });

  it("C4 falls back to the provider-wide entry, and a null or absent authType goes straight to it", () => {
    for (const authType of ["apikey", null, undefined]) {
      expect(classifyConnectionBilling({ provider: "claude", authType }, catalog)).toMatchObject({
        billing: "metered",
        matchedBy: "C4",
        reason: "Claude API key",
      });
    }
  });

  it("C5 an unlisted provider, or a provider listed only for other authTypes, is unknown", () => {
    expect(
      classifyConnectionBilling({ provider: "newco", authType: "oauth" }, catalog),
    ).toMatchObject({ billing: "unknown", overage: "unknown", matchedBy: "C5" });
    expect(
      classifyConnectionBilling({ provider: "codex", authType: "apikey" }, catalog).matchedBy,
    ).toBe("C5");
    expect(classifyConnectionBilling({ provider: "codex" }, catalog).matchedBy).toBe("C5");
  });

  it("C6 the verdict names its rule and carries the entry's reason", () => {
    const verdict = classifyConnectionBilling({ provider: "codex", authType: "oauth" }, catalog);
    expect(verdict.matchedBy).toBe("C3");
    expect(verdict.reason).toBe("codex/oauth");
    expect(Object.keys(verdict).sort()).toEqual(["billing", "matchedBy", "overage", "reason"]);
  });

  it("C7 unknown billing is never plan-included and unknown overage is never overage-safe", () => {
    const uncurated = classifyConnectionBilling({ provider: "newco", authType: "oauth" }, catalog);
    expect(isPlanIncluded(uncurated)).toBe(false);
    expect(isOverageSafe(uncurated)).toBe(false);
    expect(isOverageSafe({ overage: "unknown" })).toBe(false);
    expect(isPlanIncluded({ billing: "unknown" })).toBe(false);
  });

  it("isPlanIncluded holds for subscription and keyless only, isOverageSafe for hard-stop only", () => {
    expect(isPlanIncluded({ billing: "subscription" })).toBe(true);
    expect(isPlanIncluded({ billing: "keyless" })).toBe(true);
    expect(isPlanIncluded({ billing: "metered" })).toBe(false);
    expect(isOverageSafe({ overage: "hard-stop" })).toBe(true);
    expect(isOverageSafe({ overage: "meters-to-paid" })).toBe(false);
  });

  it("compares provider and authType case-insensitively", () => {
    expect(
      classifyConnectionBilling({ provider: "Claude", authType: "OAuth" }, catalog).matchedBy,
    ).toBe("C3");
    const mixedCase = [
      entry({
        provider: "GitHub-Copilot",
        authType: "OAUTH",
        billing: "subscription",
        overage: "hard-stop",
      }),
    ];
    expect(
      classifyConnectionBilling({ provider: "github-copilot", authType: "oauth" }, mixedCase)
        .billing,
    ).toBe("subscription");
  });

  it("a later entry with the same key overrides an earlier one (operator entries appended)", () => {
    const operator = entry({
      provider: "codex",
      authType: "oauth",
      billing: "subscription",
      overage: "hard-stop",
      reason: "our workspace has no credits",
    });
    const verdict = classifyConnectionBilling({ provider: "codex", authType: "oauth" }, [
      ...catalog,
      operator,
    ]);
    expect(verdict).toMatchObject({ overage: "hard-stop", reason: "our workspace has no credits" });
  });

  it("uses the bundled catalog by default", () => {
    for (const bundled of connectionBillingCatalog) {
      const connection = { provider: bundled.provider, authType: bundled.authType ?? null };
      expect(classifyConnectionBilling(connection)).toEqual(
        classifyConnectionBilling(connection, connectionBillingCatalog),
      );
    }
    expect(
      classifyConnectionBilling({ provider: "no-such-provider-x", authType: "oauth" }).matchedBy,
    ).toBe("C5");
  });

  it("indexes a catalog once per array", () => {
    expect(createConnectionClassifier(catalog)).toBe(createConnectionClassifier(catalog));
    expect(createConnectionClassifier([...catalog])).not.toBe(createConnectionClassifier(catalog));
  });
});

const providerArb = fc.constantFrom("claude", "codex", "openai", "Claude", "zai", "");
const authArb = fc.option(fc.constantFrom("oauth", "apikey", "OAuth", "none", "pat"), {
  nil: null,
});
const entryArb = fc
  .record({
    provider: fc.constantFrom("claude", "codex", "openai", "zai", "CODEX"),
    authType: fc.option(fc.constantFrom("oauth", "apikey", "OAuth", "pat"), { nil: undefined }),
    billing: fc.constantFrom("subscription", "metered", "keyless", "unknown" as const),
    overage: fc.constantFrom("hard-stop", "meters-to-paid", "unknown" as const),
    reason: fc.string({ minLength: 1, maxLength: 8 }),
  })
  .map(({ authType, ...rest }) => entry(authType === undefined ? rest : { ...rest, authType }));

describe("classifyConnectionBilling properties", () => {
  it("C1–C5 agree with a direct reading of the rules on random catalogs", () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { maxLength: 12 }),
        providerArb,
        authArb,
        (entries, provider, authType) => {
          const verdict = classifyConnectionBilling({ provider, authType }, entries);
          const lower = (s: string) => s.toLowerCase();
          const last = <T>(items: T[]) => items[items.length - 1];
          if (authType !== null && lower(authType) === "none") {
            expect(verdict.matchedBy).toBe("C1");
            return;
          }
          if (provider.trim() === "") {
            expect(verdict.matchedBy).toBe("C2");
            return;
          }
          const sameProvider = entries.filter((e) => lower(e.provider) === lower(provider));
          const exact = last(
            sameProvider.filter(
              (e) =>
                authType !== null &&
                e.authType !== undefined &&
                lower(e.authType) === lower(authType),
            ),
          );
          const wide = last(sameProvider.filter((e) => e.authType === undefined));
          const expected = exact ?? wide;
          if (expected) {
            expect(verdict).toEqual({
              billing: expected.billing,
              overage: expected.overage,
              reason: expected.reason,
              matchedBy: exact ? "C3" : "C4",
            });
          } else {
            expect(verdict).toMatchObject({
              billing: "unknown",
              overage: "unknown",
              matchedBy: "C5",
            });
          }
        },
      ),
      { numRuns: 5000 },
    );
  });
});
