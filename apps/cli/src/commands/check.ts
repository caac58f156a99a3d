import type { ConfigFinding } from "@planfirst/gateway";
import type { Command } from "commander";
import { locateConfig, readConfig } from "../config-file";
import type { CliContext } from "../context";
import { EXIT_CODES } from "../exit-codes";
import { renderTable } from "../format/table";
import { loadGateway } from "../gateway-module";
import { writeJson, writeOut } from "../output";

/** Options of `planfirst check`. */
interface CheckOptions {
  config?: string;
  json?: boolean;
}

/** One line of the report: a schema problem or a finding of the gateway's `checkConfig`. */
interface CheckItem {
  /** `note`s say how a connection is served; only errors and warnings are problems. */
  severity: "error" | "warning" | "note";
  code: string;
  path: string;
  message: string;
}

/** Registers `planfirst check [--config FILE]`. */
export function registerCheckCommand(program: Command, context: CliContext): void {
  program
    .command("check")
    .description(
      "validate a config and list what will cost money before anything is spent; exit 1 on errors, 0 with warnings",
    )
    .option(
      "-c, --config <file>",
      "config file (default ./planfirst.yaml, else ./planfirst.example.yaml)",
    )
    .option("--json", "print one JSON document")
    .action(async (options: CheckOptions) => {
      await runCheck(context, options);
    });
}

async function runCheck(context: CliContext, options: CheckOptions): Promise<void> {
  const location = locateConfig(options.config, context.io.cwd);
  const loaded = await readConfig(location);
  const { checkConfig } = await loadGateway();
  const items: CheckItem[] = loaded.ok
    ? checkConfig(loaded.config, context.io.env).map(itemOf)
    : loaded.problems.map((problem) => ({
        severity: "error",
        code: "invalid_config",
        path: problem.path,
        message: problem.message,
      }));
  const errors = items.filter((item) => item.severity === "error");
  const warnings = items.filter((item) => item.severity === "warning");
  const notes = items.filter((item) => item.severity === "note");
  context.exitCode = errors.length > 0 ? EXIT_CODES.problems : EXIT_CODES.ok;
  if (options.json) {
    writeJson(context, {
      config: location.shown,
      configSource: location.source,
      ok: errors.length === 0,
      errors,
      warnings,
      notes,
    });
    return;
  }
  const { color } = context;
  const lines: string[] = [];
  if (location.source === "example") {
    lines.push(`no --config and no ./planfirst.yaml: checking ${location.shown}`);
  }
  const summary = `${plural(errors.length, "error")}, ${plural(warnings.length, "warning")}`;
  if (errors.length + warnings.length === 0) {
    lines.push(`${color.green("ok")} ${location.shown}: no problems found`);
  } else {
    const verdict = errors.length > 0 ? color.red("invalid") : color.yellow("ok with warnings");
    lines.push(`${verdict} ${location.shown}: ${summary}`);
  }
  if (items.length > 0) {
    const rows = [...errors, ...warnings, ...notes].map((item) => [
      severityLabel(item.severity, color),
      item.path,
      item.message,
    ]);
    lines.push(
      "",
      renderTable([{ header: "severity" }, { header: "path" }, { header: "finding" }], rows, color),
    );
  }
  if (loaded.ok && loaded.config.connections.length > 0 && errors.length === 0) {
    lines.push(
      `${plural(loaded.config.connections.length, "connection")}; see where a request goes with: planfirst explain auto/thrifty${options.config ? ` --config ${options.config}` : ""}`,
    );
  }
  writeOut(context, lines.join("\n"));
}

function itemOf(finding: ConfigFinding): CheckItem {
  return {
    severity: finding.severity,
    code: finding.code,
    path: finding.path,
    message: finding.message,
  };
}

function severityLabel(severity: CheckItem["severity"], color: CliContext["color"]): string {
  if (severity === "error") return color.red("error");
  if (severity === "warning") return color.yellow("warning");
  return color.dim("note");
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
