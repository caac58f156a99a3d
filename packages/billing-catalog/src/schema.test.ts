import { connectionBillingEntrySchema, isoDateSchema } from "@planfirst/billing-catalog";
import { describe, expect, it } from "vitest";

describe("schema", () => {
  it("rejects a date that does not exist", () => {
    expect(isoDateSchema.safeParse("2026-02-30").success).toBe(false);
    expect(isoDateSchema.safeParse("2026-02-28").success).toBe(true);
  });
  it("rejects an unknown billing class", () => {
    const r = connectionBillingEntrySchema.safeParse({
      provider: "x",
      billing: "free",
      overage: "hard-stop",
      reason: "r",
      sources: ["https://example.com"],
      reviewed: "2026-11-01",
    });
    expect(r.success).toBe(false);
  });
});
