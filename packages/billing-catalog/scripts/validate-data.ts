// Validates the shipped catalog data. Prints a one-line summary, or every problem and exits 1.
import { catalogMeta, connectionBillingCatalog, modelPrices, validateCatalog } from "../src/index";

const result = validateCatalog({ connections: connectionBillingCatalog, models: modelPrices });
if (result.ok) {
  console.log(
    `@planfirst/billing-catalog ${catalogMeta.version}: ${result.catalog.connections.length} connection entries, ` +
      `${result.catalog.models.length} model prices, data date ${catalogMeta.dataDate}; valid`,
  );
} else {
  console.error(
    `@planfirst/billing-catalog ${catalogMeta.version}: ${result.problems.length} problem(s) in the shipped data`,
  );
  for (const problem of result.problems) console.error(`  ${problem.path}: ${problem.message}`);
  process.exitCode = 1;
}
