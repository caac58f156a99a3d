import packageJson from "../package.json" with { type: "json" };
import { connectionBillingCatalog, modelPricesReadOn } from "./data";

/** Version and data date of the catalog as shipped. */
export interface CatalogMeta {
  /** The package version (semver); data corrections and additions bump the patch. */
  version: string;
  /** ISO date (`YYYY-MM-DD`): the newest of the entries' review dates and the prices' read date. */
  dataDate: string;
}

/**
 * Version and data date of this catalog. Show `dataDate` wherever prices or billing verdicts are
 * shown, so stale data is visible.
 */
export const catalogMeta: Readonly<CatalogMeta> = Object.freeze({
  version: packageJson.version,
  // ISO dates order lexically, so the last one after sorting is the newest.
  dataDate: [modelPricesReadOn, ...connectionBillingCatalog.map((entry) => entry.reviewed)]
    .sort()
    .at(-1)!,
});
