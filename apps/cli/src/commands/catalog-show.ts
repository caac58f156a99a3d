import {
  type ConnectionBillingEntry,
  catalogMeta,
  connectionBillingCatalog,
  type ModelPrice,
  modelPrices,
} from "@planfirst/billing-catalog";
import type { Command } from "commander";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import { formatUsd } from "../format/money";
import { renderTable } from "../format/table";
import { writeJson, writeOut } from "../output";

/** Options of `planfirst catalog show`. */
interface CatalogShowOptions {
  json?: boolean;
}

/** Registers `planfirst catalog show [PROVIDER]`. */
export function registerCatalogShowCommand(catalog: Command, context: CliContext): void {
  catalog
    .command("show")
    .description("list the bundled connection billing entries and model prices")
    .argument("[provider]", "only this provider (e.g. claude, openrouter); case-insensitive")
    .option("--json", "print one JSON document")
    .action((provider: string | undefined, options: CatalogShowOptions) => {
      showCatalog(context, provider, options);
    });
}

function showCatalog(
  context: CliContext,
  provider: string | undefined,
  options: CatalogShowOptions,
) {
  const wanted = provider?.toLowerCase();
  const connections = connectionBillingCatalog.filter(
    (entry) => wanted === undefined || entry.provider.toLowerCase() === wanted,
  );
  const models = modelPrices.filter(
    (price) => wanted === undefined || price.provider.toLowerCase() === wanted,
  );
  if (provider !== undefined && connections.length === 0 && models.length === 0) {
    const known = [
      ...new Set([...connectionBillingCatalog, ...modelPrices].map((entry) => entry.provider)),
    ].sort();
    throw new CliError({
      code: "provider_unknown",
      message: `provider "${provider}" is not in the catalog: a connection to it classifies as unknown and is treated as metered (rule C7)`,
      details: [`providers in the catalog: ${known.join(", ")}`],
    });
  }
  if (options.json) {
    writeJson(context, { catalog: catalogMeta, connections, models });
    return;
  }
  const { color } = context;
  const lines = [
    `${color.bold("planfirst billing catalog")} ${catalogMeta.version}, data date ${catalogMeta.dataDate}`,
    "",
    color.bold(`Connections (${connections.length})`),
    connectionTable(connections, context, provider !== undefined),
    color.bold(`Models (${models.length}), USD per 1M tokens`),
    modelTable(models, context),
  ];
  writeOut(context, lines.join("\n"));
}

function connectionTable(
  entries: readonly ConnectionBillingEntry[],
  context: CliContext,
  withReason: boolean,
): string {
  const { color } = context;
  const rows = entries.map((entry) => [
    entry.provider,
    entry.authType ?? color.dim("(any)"),
    paintBilling(entry.billing, context),
    entry.overage === "hard-stop" ? color.green(entry.overage) : color.yellow(entry.overage),
    entry.reviewed,
    ...(withReason ? [entry.reason] : []),
  ]);
  const columns = [
    { header: "provider" },
    { header: "auth type" },
    { header: "billing" },
    { header: "overage" },
    { header: "reviewed" },
    ...(withReason ? [{ header: "reason" }] : []),
  ];
  return renderTable(columns, rows, color);
}

function paintBilling(billing: string, context: CliContext): string {
  const { color } = context;
  if (billing === "subscription" || billing === "keyless") return color.green(billing);
  if (billing === "unknown") return color.yellow(billing);
  return billing;
}

function modelTable(prices: readonly ModelPrice[], context: CliContext): string {
  const price = (usd: number | undefined) => (usd === undefined ? "" : formatUsd(usd));
  const rows = prices.map((entry) => [
    entry.provider,
    entry.model,
    entry.free ? context.color.green("free") : price(entry.inputPerMTok),
    entry.free ? "" : price(entry.outputPerMTok),
    price(entry.cachedInputPerMTok),
    entry.contextWindow === undefined ? "" : entry.contextWindow.toLocaleString("en-US"),
    (entry.categories ?? []).join(","),
  ]);
  return renderTable(
    [
      { header: "provider" },
      { header: "model" },
      { header: "input", align: "end" },
      { header: "output", align: "end" },
      { header: "cached in", align: "end" },
      { header: "context", align: "end" },
      { header: "categories" },
    ],
    rows,
    context.color,
  );
}
