import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { effectiveOverage, type OverageEvidenceReading } from "./effective-overage";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const MAX_AGE = 180_000;
const at = (agoMs: number) => new Date(NOW - agoMs).toISOString();
const reading = (
  evidence: "on" | "off",
  agoMs: number,
  source = "test",
): OverageEvidenceReading => ({
  evidence,
  observedAt: at(agoMs),
  source,
});

const overage = fc.constantFrom("hard-stop", "meters-to-paid", "unknown") as fc.Arbitrary<
  "hard-stop" | "meters-to-paid" | "unknown"
>;
const anyReading = fc.record({
  evidence: fc.constantFrom("on", "off") as fc.Arbitrary<"on" | "off">,
  observedAt: fc.oneof(
    fc.integer({ min: -60_000, max: 2 * MAX_AGE }).map(at),
    fc.constantFrom("", "not a date", "2026-13-45"),
  ),
  source: fc.string({ maxLength: 8 }),
});

describe("effectiveOverage (E3)", () => {
  it("fresh on makes a hard-stop catalog entry meters-to-paid", () => {
    const result = effectiveOverage({ overage: "hard-stop" }, reading("on", 1_000), NOW, MAX_AGE);
    expect(result).toMatchObject({ overage: "meters-to-paid", basis: "evidence-on" });
  });

  it("fresh off makes an unknown entry hard-stop, and says why", () => {
    const result = effectiveOverage(
      { overage: "unknown" },
      reading("off", 0, "claude-header"),
      NOW,
      MAX_AGE,
    );
    expect(result.overage).toBe("hard-stop");
    expect(result.reason).toContain("claude-header");
  });

  it("evidence observed exactly maxStateAgeMs ago is fresh, one ms more is not", () => {
    expect(
      effectiveOverage({ overage: "unknown" }, reading("off", MAX_AGE), NOW, MAX_AGE).overage,
    ).toBe("hard-stop");
    expect(
      effectiveOverage({ overage: "unknown" }, reading("off", MAX_AGE + 1), NOW, MAX_AGE).overage,
    ).toBe("unknown");
  });

  it("on wins over a newer off while both are fresh", () => {
    const result = effectiveOverage(
      { overage: "unknown" },
      [reading("off", 0), reading("on", 60_000)],
      NOW,
      MAX_AGE,
    );
    expect(result.overage).toBe("meters-to-paid");
  });

  it("an aged-out on no longer counts; the fresh off then decides", () => {
    const result = effectiveOverage(
      { overage: "unknown" },
      [reading("off", 0), reading("on", MAX_AGE + 1)],
      NOW,
      MAX_AGE,
    );
    expect(result.overage).toBe("hard-stop");
  });

  it("property: no fresh on is ever upgraded", () => {
    fc.assert(
      fc.property(
        overage,
        fc.array(anyReading, { maxLength: 5 }),
        fc.integer({ min: 0, max: MAX_AGE }),
        (catalog, others, age) => {
          const result = effectiveOverage(
            { overage: catalog },
            [...others, reading("on", age)],
            NOW,
            MAX_AGE,
          );
          expect(result.overage).toBe("meters-to-paid");
        },
      ),
    );
  });

  it("property: meters-to-paid from the catalog or an operator is final", () => {
    fc.assert(
      fc.property(fc.array(anyReading, { maxLength: 6 }), (observations) => {
        const result = effectiveOverage({ overage: "meters-to-paid" }, observations, NOW, MAX_AGE);
        expect(result.overage).toBe("meters-to-paid");
      }),
    );
  });

  it("property: a fresh off with no fresh on upgrades unknown to hard-stop", () => {
    fc.assert(
      fc.property(
        fc.array(
          anyReading.filter((r) => r.evidence === "off"),
          { maxLength: 4 },
        ),
        fc.integer({ min: 0, max: MAX_AGE }),
        fc.integer({ min: MAX_AGE + 1, max: 10 * MAX_AGE }),
        (offs, age, staleAge) => {
          const observations = [...offs, reading("off", age), reading("on", staleAge)];
          expect(effectiveOverage({ overage: "unknown" }, observations, NOW, MAX_AGE).overage).toBe(
            "hard-stop",
          );
        },
      ),
    );
  });

  it("property: hard-stop results only come from hard-stop or a fresh off, never with a fresh on", () => {
    fc.assert(
      fc.property(overage, fc.array(anyReading, { maxLength: 6 }), (catalog, observations) => {
        const result = effectiveOverage({ overage: catalog }, observations, NOW, MAX_AGE);
        const freshOn = observations.some(
          (r) => r.evidence === "on" && NOW - Date.parse(r.observedAt) <= MAX_AGE,
        );
        if (freshOn) expect(result.overage).toBe("meters-to-paid");
        if (result.overage === "hard-stop")
          expect(catalog === "hard-stop" || result.basis === "evidence-off").toBe(true);
        if (!observations.some((r) => NOW - Date.parse(r.observedAt) <= MAX_AGE)) {
          expect(result).toMatchObject({ overage: catalog, basis: "catalog" });
        }
      }),
    );
  });
});
