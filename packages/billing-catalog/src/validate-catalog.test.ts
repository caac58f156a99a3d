import {
  type ConnectionBillingEntry,
  connectionBillingCatalog,
  type ModelPrice,
  modelPrices,
  validateCatalog,
} from "@planfirst/billing-catalog";
import { describe, expect, it } from "vitest";

const entry: ConnectionBillingEntry = {
  provider: "example",
  authType: "oauth",
  billing: "subscription",
  overage: "hard-stop",
  reason: "Example plan that stops at its limit.",
  sources: ["https://example.com/terms"],
  reviewed: "2026-11-01",
};
const price: ModelPrice = {
  provider: "example",
  model: "example-large",
  inputPerMTok: 1,
  outputPerMTok: 4,
};

function problemsOf(input: unknown) {
  const result = validateCatalog(input);
  if (result.ok) throw new Error("expected the catalog to be rejected");
  return result.problems;
}

describe("validateCatalog", () => {
  it("accepts the shipped data", () => {
    const result = validateCatalog({ connections: connectionBillingCatalog, models: modelPrices });
    expect(result.ok ? [] : result.problems).toEqual([]);
    expect(result.ok && result.catalog.models.length).toBe(modelPrices.length);
  });

  it("reads a missing list as empty, so a partial operator catalog validates", () => {
    expect(validateCatalog({ models: [price] })).toEqual({
      ok: true,
      catalog: { connections: [], models: [price] },
    });
  });

  it("rejects an unknown overage value, naming the path and the allowed values", () => {
    const problems = problemsOf({
      connections: [entry, { ...entry, authType: "apikey", overage: "stops" }],
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: "connections[1].overage", code: "schema" });
    expect(problems[0]!.message).toContain('"hard-stop", "meters-to-paid", "unknown"');
    expect(problems[0]!.message).toContain('"stops"');
  });

  it("rejects an unknown billing class, naming the allowed values", () => {
    const [problem] = problemsOf({ connections: [{ ...entry, billing: "free" }] });
    expect(problem?.path).toBe("connections[0].billing");
    expect(problem?.message).toContain('"subscription", "metered", "keyless", "unknown"');
  });

  it("rejects a negative price", () => {
    const [problem] = problemsOf({ models: [{ ...price, inputPerMTok: -0.5 }] });
    expect(problem?.path).toBe("models[0].inputPerMTok");
    expect(problem?.message).toMatch(/at least 0.*-0\.5/);
  });

  it("rejects a review date that does not exist or is not YYYY-MM-DD", () => {
    const problems = problemsOf({
      connections: [
        { ...entry, reviewed: "2026-02-30" },
        { ...entry, authType: "apikey", reviewed: "30/11/2026" },
      ],
    });
    expect(problems.map((p) => p.path)).toEqual([
      "connections[0].reviewed",
      "connections[1].reviewed",
    ]);
    expect(problems[0]!.message).toContain("real calendar date");
    expect(problems[1]!.message).toContain("YYYY-MM-DD");
  });

  it("rejects an unknown key, listing the allowed keys", () => {
    const [problem] = problemsOf({ models: [{ ...price, inputPerMtok: 1 }] });
    expect(problem?.path).toBe("models[0].inputPerMtok");
    expect(problem?.message).toContain("allowed keys: provider, model, inputPerMTok");
  });

  it("rejects an unknown top-level key", () => {
    const [problem] = problemsOf({ conections: [] });
    expect(problem).toMatchObject({ path: "conections", code: "schema" });
    expect(problem?.message).toContain("allowed keys: connections, models");
  });

  it("rejects an entry without sources or with a source that is not a URL", () => {
    const problems = problemsOf({
      connections: [
        { ...entry, sources: [] },
        { ...entry, authType: "apikey", sources: ["see the website"] },
      ],
    });
    expect(problems.map((p) => p.path)).toEqual([
      "connections[0].sources",
      "connections[1].sources[0]",
    ]);
    expect(problems[0]!.message).toContain("at least 1 item");
    expect(problems[1]!.message).toContain("URL");
  });

  it("rejects a missing required field, naming it", () => {
    const { reason: _reason, ...withoutReason } = entry;
    const [problem] = problemsOf({ connections: [withoutReason] });
    expect(problem?.path).toBe("connections[0].reason");
    expect(problem?.message).toContain("required");
  });

  it("rejects a duplicate (provider, authType) key, compared case-insensitively", () => {
    const problems = problemsOf({
      connections: [entry, { ...entry, provider: "Example", authType: "OAuth" }],
    });
    expect(problems).toEqual([
      expect.objectContaining({ path: "connections[1]", code: "duplicate-connection" }),
    ]);
    expect(problems[0]!.message).toContain("connections[0]");
  });

  it("rejects two provider-wide entries for one provider but accepts provider-wide beside authType", () => {
    const { authType: _authType, ...providerWide } = entry;
    expect(validateCatalog({ connections: [providerWide, entry] }).ok).toBe(true);
    const problems = problemsOf({
      connections: [providerWide, entry, { ...providerWide, provider: "EXAMPLE" }],
    });
    expect(problems).toEqual([
      expect.objectContaining({ path: "connections[2]", code: "duplicate-connection" }),
    ]);
    expect(problems[0]!.message).toContain("provider-wide");
  });

  it("rejects a duplicate (provider, model) pair", () => {
    const problems = problemsOf({
      models: [price, { ...price, model: "Example-Large", inputPerMTok: 2 }],
    });
    expect(problems).toEqual([
      expect.objectContaining({ path: "models[1]", code: "duplicate-model" }),
    ]);
  });

  it("returns every problem at once, in file order, not only the first", () => {
    const problems = problemsOf({
      connections: [
        { ...entry, overage: "maybe", reviewed: "yesterday" },
        { ...entry, billing: "gratis" },
      ],
      models: [{ ...price, outputPerMTok: -1 }, price],
    });
    expect(problems.map((p) => p.path)).toEqual([
      "connections[0].overage",
      "connections[0].reviewed",
      "connections[1]",
      "connections[1].billing",
      "models[0].outputPerMTok",
      "models[1]",
    ]);
  });

  it("rejects input that is not a catalog object without throwing", () => {
    for (const input of [null, 42, "catalog", [entry]]) {
      const problems = problemsOf(input);
      expect(problems[0]).toMatchObject({ path: "", code: "schema" });
      expect(problems[0]!.message).toContain("object");
    }
  });
});
