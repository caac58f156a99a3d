import { Command, CommanderError } from "commander";
import packageJson from "../package.json" with { type: "json" };
import { registerCatalogCommand } from "./commands/catalog";
import { registerCheckCommand } from "./commands/check";
import { registerExplainCommand } from "./commands/explain";
import { registerInitCommand } from "./commands/init";
import { registerLogCommand } from "./commands/log";
import { registerLoginCommand } from "./commands/login";
import { registerReloadCommand } from "./commands/reload";
import { registerServeCommand } from "./commands/serve";
import { registerSimulateCommand } from "./commands/simulate";
import { registerStatusCommand } from "./commands/status";
import { type CliContext, type CliIo, createCliContext } from "./context";
import { CliError } from "./errors";
import { EXIT_CODES } from "./exit-codes";
import { writeErr } from "./output";

/** The version of this package, printed by `planfirst --version`. */
export const CLI_VERSION: string = packageJson.version;

/**
 * Builds the `planfirst` command tree (commander) bound to `context`. Commander never exits the
 * process itself (`exitOverride`): usage errors surface as `CommanderError`, which
 * {@link runCli} maps to exit code 2. Commands set `context.exitCode`.
 */
export function createProgram(context: CliContext = createCliContext()): Command {
  const program = new Command("planfirst")
    .description(
      "Run the planfirst gateway, explain where a request goes and why, and check a config before it spends money.",
    )
    .version(CLI_VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
      outputError: (text, write) => write(context.color.red(text)),
    })
    .showHelpAfterError("(run with --help for usage)")
    .showSuggestionAfterError(true)
    .addHelpText(
      "after",
      `
Exit codes:
  0  ok (warnings may have been printed)
  1  problems found (check errors, invalid catalog file, unknown model, a refused reload)
  2  usage error
  3  gateway unreachable`,
    );
  registerServeCommand(program, context);
  registerExplainCommand(program, context);
  registerStatusCommand(program, context);
  registerLogCommand(program, context);
  registerReloadCommand(program, context);
  registerCheckCommand(program, context);
  registerCatalogCommand(program, context);
  registerInitCommand(program, context);
  registerLoginCommand(program, context);
  registerSimulateCommand(program, context);
  return program;
}

/**
 * Runs the command line `argv` (as `process.argv`: node, script, then arguments) and resolves
 * with the exit code (see `EXIT_CODES`); never calls `process.exit`. `io` replaces parts of the
 * real process I/O.
 */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const context = createCliContext(io);
  const program = createProgram(context);
  try {
    await program.parseAsync([...argv]);
    return context.exitCode;
  } catch (error) {
    return exitCodeOf(error, context);
  }
}

function exitCodeOf(error: unknown, context: CliContext): number {
  if (error instanceof CommanderError) {
    // Help and version are answers, not failures; everything else commander raises is usage.
    // Help and version asked for are answers; help shown because a subcommand is missing, and
    // everything else commander raises, is a usage error.
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") {
      return EXIT_CODES.ok;
    }
    return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  }
  if (CliError.isInstance(error)) {
    writeErr(context, `${context.color.red("error:")} ${error.message}`);
    for (const line of error.details) writeErr(context, `  ${line}`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeErr(context, `${context.color.red("error:")} ${message}`);
  return EXIT_CODES.problems;
}
