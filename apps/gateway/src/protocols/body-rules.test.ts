import { describe, expect, it } from "vitest";
import { applyBodyRules, bodyRulesKey } from "./body-rules";

const rules = { fixed: { store: false }, defaults: { instructions: "" } };

describe("body rules", () => {
  it("fixes a field, listing a different client value as dropped, and fills an absent one", () => {
    const body: Record<string, unknown> = { input: "hi", store: true };
    const dropped = applyBodyRules(body, rules, ["cache_control"]);
    expect(body).toEqual({ input: "hi", store: false, instructions: "" });
    expect(dropped).toEqual(["cache_control", "store"]);
  });

  it("drops nothing when the client's value already agrees, and keeps its own defaults", () => {
    const none: readonly string[] = [];
    const body: Record<string, unknown> = { store: false, instructions: "Be brief." };
    expect(applyBodyRules(body, rules, none)).toBe(none);
    expect(body).toEqual({ store: false, instructions: "Be brief." });
    const nulls: Record<string, unknown> = { store: null, instructions: null };
    expect(applyBodyRules(nulls, rules, none)).toBe(none);
    expect(nulls).toEqual({ store: false, instructions: "" });
  });

  it("names equal rules with one key and different rules with two", () => {
    expect(bodyRulesKey(rules)).toBe(bodyRulesKey({ ...rules }));
    expect(bodyRulesKey(rules)).not.toBe(bodyRulesKey({ fixed: { store: true } }));
  });
});
