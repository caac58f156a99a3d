import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ADVERTISED_AUTO_IDS, isPaidTierAutoId, parseAutoId } from "./auto-id";

describe("auto ids (ladder.md §12)", () => {
  it("parses auto/<tier> and auto/<category>:<tier>", () => {
    expect(parseAutoId("auto/subscription")).toEqual({ tier: "subscription" });
    expect(parseAutoId("auto/thrifty")).toEqual({ tier: "thrifty" });
    expect(parseAutoId("auto/coding:thrifty")).toEqual({ category: "coding", tier: "thrifty" });
    expect(parseAutoId("auto/reasoning:subscription")).toEqual({
      category: "reasoning",
      tier: "subscription",
    });
    expect(parseAutoId("auto/long-context2:thrifty")).toEqual({
      category: "long-context2",
      tier: "thrifty",
    });
  });

  it("a tier is required, the grammar is exact and case-sensitive, and a bad id is null, never a throw", () => {
    for (const id of [
      "auto/coding",
      "auto/thrifty:coding",
      "auto/coding:thrifty:x",
      "auto/Thrifty",
      "auto/Coding:thrifty",
      "Auto/thrifty",
      "auto/",
      "auto/:thrifty",
      "auto/2fast:thrifty",
      "auto/coding_x:thrifty",
      " auto/thrifty",
      "auto/thrifty ",
      "auto/thrifty\n",
      "claude-sonnet-4-5",
      "",
    ]) {
      expect(parseAutoId(id), id).toBeNull();
    }
    for (const value of [undefined, null, 42, {}, ["auto/thrifty"]]) {
      expect(parseAutoId(value)).toBeNull();
    }
  });

  it("parseAutoId never throws on any string", () => {
    fc.assert(
      fc.property(fc.string(), (id) => {
        const parsed = parseAutoId(id);
        if (parsed)
          expect(id).toBe(`auto/${parsed.category ? `${parsed.category}:` : ""}${parsed.tier}`);
      }),
      { numRuns: 5000 },
    );
  });

  it("advertises auto/subscription and auto/thrifty", () => {
    expect(ADVERTISED_AUTO_IDS).toEqual(["auto/subscription", "auto/thrifty"]);
    expect(Object.isFrozen(ADVERTISED_AUTO_IDS)).toBe(true);
  });

  it("neither advertised id nor any composite of them is a paid-tier id", () => {
    for (const id of ADVERTISED_AUTO_IDS) expect(isPaidTierAutoId(id)).toBe(false);
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
        fc.constantFrom("subscription", "thrifty"),
        (category, tier) => {
          expect(isPaidTierAutoId(`auto/${category}:${tier}`)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("only ids of a paid tier are paid-tier ids", () => {
    for (const id of ["auto/pro", "auto/pro-max", "auto/coding:pro", "auto/coding:pro-2"]) {
      expect(isPaidTierAutoId(id), id).toBe(true);
    }
    for (const id of ["auto/promo", "auto/pro:coding", "auto/Pro", "claude-opus-4-1", "pro", 7]) {
      expect(isPaidTierAutoId(id), String(id)).toBe(false);
    }
  });
});
