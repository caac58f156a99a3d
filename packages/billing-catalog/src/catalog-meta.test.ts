import {
  catalogMeta,
  connectionBillingCatalog,
  modelPricesReadOn,
} from "@planfirst/billing-catalog";
import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };

describe("catalogMeta", () => {
  it("carries the package version, so it cannot drift from the release", () => {
    expect(catalogMeta.version).toBe(packageJson.version);
  });

  it("dates the data by its newest review or price reading", () => {
    const dates = [modelPricesReadOn, ...connectionBillingCatalog.map((e) => e.reviewed)];
    expect(catalogMeta.dataDate).toBe([...dates].sort().at(-1));
    for (const date of dates) expect(date <= catalogMeta.dataDate).toBe(true);
    expect(catalogMeta.dataDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
