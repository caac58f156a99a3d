import type { ReloadOutcome } from "@planfirst/gateway";
import type { Command } from "commander";
import type { CliContext } from "../context";
import { defaultGatewayUrl, postGatewayJson } from "../gateway-client";
import { writeJson, writeOut } from "../output";

/** Options of `planfirst reload`. */
interface ReloadOptions {
  url?: string;
  apiKeyEnv: string;
  json?: boolean;
}

/** Registers `planfirst reload [--url URL] [--api-key-env NAME] [--json]`. */
export function registerReloadCommand(program: Command, context: CliContext): void {
  program
    .command("reload")
    .description(
      "make a running gateway re-read its config file (an admin key); prints what changed, or every problem of a file it refused while it keeps serving the old one",
    )
    .option(
      "-u, --url <url>",
      "gateway base URL (default PLANFIRST_URL, else http://127.0.0.1:4141)",
    )
    .option("--api-key-env <NAME>", "variable holding the gateway client key", "PLANFIRST_API_KEY")
    .option("--json", "print the gateway's answer as one JSON document")
    .action(async (options: ReloadOptions) => {
      await runReload(context, options);
    });
}

// A refused file is an error answer (422): the client turns it into a CliError listing each
// problem, and the process exits 1.
async function runReload(context: CliContext, options: ReloadOptions): Promise<void> {
  const target = {
    url: options.url || defaultGatewayUrl(context.io.env),
    apiKey: context.io.env[options.apiKeyEnv],
  };
  const outcome = (await postGatewayJson(target, "/v1/admin/reload")) as Extract<
    ReloadOutcome,
    { reloaded: true }
  >;
  if (options.json) {
    writeJson(context, outcome);
    return;
  }
  writeOut(context, reloadLines(outcome, context).join("\n"));
}

/** What `planfirst reload` prints for an applied configuration. */
export function reloadLines(
  outcome: Extract<ReloadOutcome, { reloaded: true }>,
  context: Pick<CliContext, "color">,
): string[] {
  const lines = [
    `reloaded ${outcome.file ?? "the configuration"}: now serving configuration ${outcome.generation}`,
  ];
  const { added, removed, changed } = outcome.connections;
  if (added.length > 0) lines.push(`  connections added: ${added.join(", ")}`);
  if (removed.length > 0) lines.push(`  connections removed: ${removed.join(", ")}`);
  if (changed.length > 0) lines.push(`  connections changed: ${changed.join(", ")}`);
  if (added.length + removed.length + changed.length === 0) lines.push("  connections unchanged");
  for (const warning of outcome.warnings) {
    lines.push(`  ${context.color.yellow("warning:")} ${warning}`);
  }
  return lines;
}
