import { type ConnectionBillingEntry, connectionBillingCatalog } from "@planfirst/billing-catalog";
import {
  type ConnectionBillingVerdict,
  type ConnectionRef,
  createConnectionClassifier,
} from "./connection-classifier";

/**
 * Classifies one connection's billing by rules C1–C7 of ladder.md §2:
 * C1 `authType` "none" → keyless / hard-stop without consulting the catalog; C2 empty provider →
 * unknown; C3 an entry for provider and authType wins over C4 the provider-wide entry, whatever
 * the catalog order; C5 anything else → unknown. Provider and authType compare
 * case-insensitively. Never throws.
 *
 * @param catalog billing entries to classify against; defaults to the bundled catalog of
 *   `@planfirst/billing-catalog`. Indexed once per array (see `createConnectionClassifier`).
 */
export function classifyConnectionBilling(
  connection: ConnectionRef,
  catalog: readonly ConnectionBillingEntry[] = connectionBillingCatalog,
): ConnectionBillingVerdict {
  return createConnectionClassifier(catalog).classify(connection);
}

/**
 * True when the connection is paid for by a plan or by nobody: billing `subscription` or
 * `keyless`. `unknown` is never plan-included (C7).
 */
export function isPlanIncluded(verdict: Pick<ConnectionBillingVerdict, "billing">): boolean {
  return verdict.billing === "subscription" || verdict.billing === "keyless";
}

/**
 * True when running out of quota stops the connection instead of billing: overage `hard-stop`.
 * `unknown` is never overage-safe (C7).
 */
export function isOverageSafe(verdict: Pick<ConnectionBillingVerdict, "overage">): boolean {
  return verdict.overage === "hard-stop";
}
