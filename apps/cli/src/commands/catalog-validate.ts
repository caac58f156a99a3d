import { validateCatalog } from "@planfirst/billing-catalog";
import type { Command } from "commander";
import type { CliContext } from "../context";
import { EXIT_CODES } from "../exit-codes";
import { writeJson, writeOut } from "../output";
import { readDocument } from "../read-document";

/** Options of `planfirst catalog validate`. */
interface CatalogValidateOptions {
  json?: boolean;
}

/** One problem of an operator catalog file: where it is and what is wrong. */
interface CatalogFileProblem {
  path: string;
  message: string;
}

/** Registers `planfirst catalog validate FILE`. */
export function registerCatalogValidateCommand(catalog: Command, context: CliContext): void {
  catalog
    .command("validate")
    .description(
      "validate an operator catalog file (JSON or YAML: { connections: [...], models: [...] }); exit 1 on problems",
    )
    .argument("<file>", "the catalog file")
    .option("--json", "print one JSON document")
    .action(async (file: string, options: CatalogValidateOptions) => {
      await validateCatalogFile(context, file, options);
    });
}

async function validateCatalogFile(
  context: CliContext,
  file: string,
  options: CatalogValidateOptions,
): Promise<void> {
  const document = await readDocument(file, context.io.cwd);
  let problems: CatalogFileProblem[];
  let counts = { connections: 0, models: 0 };
  if (document.problem) {
    problems = [document.problem];
  } else {
    const result = validateCatalog(asCatalogInput(document.value));
    if (result.ok) {
      problems = [];
      counts = {
        connections: result.catalog.connections.length,
        models: result.catalog.models.length,
      };
    } else {
      problems = result.problems.map((problem) => ({
        path: problem.path,
        message: problem.message,
      }));
    }
  }
  context.exitCode = problems.length === 0 ? EXIT_CODES.ok : EXIT_CODES.problems;
  if (options.json) {
    writeJson(context, { file, ok: problems.length === 0, ...counts, problems });
    return;
  }
  const { color } = context;
  if (problems.length === 0) {
    writeOut(
      context,
      `${color.green("ok")} ${file}: ${counts.connections} connection entries, ${counts.models} model prices`,
    );
    return;
  }
  const noun = problems.length === 1 ? "problem" : "problems";
  const lines = [`${color.red("invalid")} ${file}: ${problems.length} ${noun}`];
  for (const problem of problems) lines.push(`  ${color.bold(problem.path)}: ${problem.message}`);
  writeOut(context, lines.join("\n"));
}

// An operator file may carry `$schema` for editor completion; it is not catalog data.
function asCatalogInput(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const { $schema: _schema, ...rest } = value as Record<string, unknown>;
  return rest;
}
