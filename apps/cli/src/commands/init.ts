import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import {
  CONNECTION_PRESETS,
  type ConnectionPreset,
  DEFAULT_INIT_PROVIDERS,
  findConnectionPreset,
} from "../init/connection-presets";
import { type InitAnswers, renderConfig } from "../init/render-config";
import { writeOut } from "../output";
import { collectList, parsePort, parseUsd } from "../parse-option";

/** Options of `planfirst init`. */
interface InitOptions {
  yes?: boolean;
  force?: boolean;
  file: string;
  provider?: string[];
  host?: string;
  port?: number;
  storage?: InitAnswers["storage"];
  redisUrl?: string;
  cheapBudget?: number;
  premiumBudget?: number;
  budgetWindow?: InitAnswers["budgetWindow"];
  apiKeyEnv?: string;
}

const DEFAULTS = {
  host: "127.0.0.1",
  port: 4141,
  storage: "sqlite",
  redisUrl: "redis://127.0.0.1:6379",
  cheapBudgetUsd: 5,
  premiumBudgetUsd: 0,
  budgetWindow: "day",
  apiKeyEnv: "",
} as const;

/** Registers `planfirst init`. */
export function registerInitCommand(program: Command, context: CliContext): void {
  program
    .command("init")
    .description(
      "write a commented planfirst.yaml: asks on a terminal, or takes flags (with --yes, defaults for the rest)",
    )
    .option("-y, --yes", "ask nothing: take flags, defaults for the rest")
    .option("-f, --force", "overwrite the file if it exists")
    .option("--file <path>", "file to write", "planfirst.yaml")
    .option(
      "--provider <id>",
      `connection to add, repeatable or comma-separated (${CONNECTION_PRESETS.map((p) => p.provider).join(", ")}); default ${DEFAULT_INIT_PROVIDERS.join(",")}`,
      collectList,
    )
    .option("--host <host>", `address to listen on (default ${DEFAULTS.host})`)
    .option("--port <n>", `port to listen on (default ${DEFAULTS.port})`, parsePort)
    .addOption(
      new Option("--storage <driver>", "state store (default sqlite)").choices([
        "sqlite",
        "memory",
        "redis",
      ]),
    )
    .option("--redis-url <url>", `Redis URL for --storage redis (default ${DEFAULTS.redisUrl})`)
    .option("--cheap-budget <usd>", "USD per window for the cheap rung (default 5)", parseUsd)
    .option(
      "--premium-budget <usd>",
      "USD per window for the premium rung, 0 disables it (default 0)",
      parseUsd,
    )
    .addOption(
      new Option("--budget-window <window>", "budget window (default day)").choices([
        "day",
        "week",
        "month",
      ]),
    )
    .option(
      "--api-key-env <NAME>",
      "environment variable holding the client key (default none: loopback only)",
    )
    .action(async (options: InitOptions) => {
      await runInit(context, options);
    });
}

async function runInit(context: CliContext, options: InitOptions): Promise<void> {
  const path = resolve(context.io.cwd, options.file);
  if (options.apiKeyEnv !== undefined) assertEnvName(options.apiKeyEnv);
  const interactive = !options.yes && Boolean(context.io.stdin.isTTY);
  const answers = interactive ? await askAnswers(context, options) : answersFromFlags(options);
  const text = renderConfig(answers);
  try {
    // `wx` refuses an existing file atomically; `--force` replaces it.
    await writeFile(path, text, { encoding: "utf8", flag: options.force ? "w" : "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new CliError({
        code: "file_exists",
        message: `${options.file} exists; pass --force to overwrite it`,
      });
    }
    throw new CliError({
      code: "file_unreadable",
      message: `cannot write ${options.file}`,
      cause: error,
    });
  }
  const secrets = answers.connections.flatMap((preset) =>
    preset.credentialEnv ? [preset.credentialEnv] : [],
  );
  if (answers.apiKeyEnv) secrets.push(answers.apiKeyEnv);
  const { color } = context;
  const lines = [
    `${color.green("wrote")} ${options.file} (${answers.connections.length} connection${answers.connections.length === 1 ? "" : "s"}: ${answers.connections.map((p) => p.id).join(", ") || "none"})`,
  ];
  if (secrets.length > 0) lines.push(`set ${secrets.join(", ")} in the environment, then`);
  lines.push(
    `  planfirst check --config ${options.file}`,
    `  planfirst serve --config ${options.file}`,
  );
  writeOut(context, lines.join("\n"));
}

function answersFromFlags(options: InitOptions): InitAnswers {
  return {
    connections: presetsFor(options.provider ?? [...DEFAULT_INIT_PROVIDERS]),
    host: options.host ?? DEFAULTS.host,
    port: options.port ?? DEFAULTS.port,
    storage: options.storage ?? DEFAULTS.storage,
    redisUrl: options.redisUrl ?? DEFAULTS.redisUrl,
    cheapBudgetUsd: options.cheapBudget ?? DEFAULTS.cheapBudgetUsd,
    premiumBudgetUsd: options.premiumBudget ?? DEFAULTS.premiumBudgetUsd,
    budgetWindow: options.budgetWindow ?? DEFAULTS.budgetWindow,
    apiKeyEnv: options.apiKeyEnv ?? DEFAULTS.apiKeyEnv,
  };
}

function presetsFor(providers: readonly string[]): ConnectionPreset[] {
  const presets: ConnectionPreset[] = [];
  for (const provider of providers) {
    const preset = findConnectionPreset(provider);
    if (!preset) {
      throw new CliError({
        code: "usage",
        message: `init has no connection preset for provider "${provider}"; allowed: ${CONNECTION_PRESETS.map((p) => p.provider).join(", ")} (write other connections by hand)`,
      });
    }
    if (!presets.includes(preset)) presets.push(preset);
  }
  return presets;
}

function assertEnvName(name: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new CliError({
      code: "usage",
      message: `--api-key-env must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*), got "${name}"`,
    });
  }
}

// Asks for what the flags left open; an empty answer takes the default shown in brackets, and an
// invalid one asks again.
async function askAnswers(context: CliContext, options: InitOptions): Promise<InitAnswers> {
  const readline = createInterface({
    input: context.io.stdin,
    output: context.io.stdout as NodeJS.WritableStream,
  });
  const ask = async <T>(question: string, fallback: string, parse: (answer: string) => T) => {
    for (;;) {
      const answer = (await readline.question(`${question} [${fallback}]: `)).trim();
      try {
        return parse(answer === "" ? fallback : answer);
      } catch (error) {
        context.io.stdout.write(`  ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  };
  try {
    const flags = answersFromFlags({ ...options, provider: options.provider ?? [] });
    const connections =
      options.provider === undefined
        ? await ask(
            `connections to add, comma-separated (${CONNECTION_PRESETS.map((p) => p.provider).join(", ")})`,
            DEFAULT_INIT_PROVIDERS.join(","),
            (answer) => presetsFor(collectList(answer)),
          )
        : flags.connections;
    const port = options.port ?? (await ask("port to listen on", String(DEFAULTS.port), parsePort));
    const cheapBudgetUsd =
      options.cheapBudget ??
      (await ask(
        `USD per ${options.budgetWindow ?? DEFAULTS.budgetWindow} for the cheap rung`,
        String(DEFAULTS.cheapBudgetUsd),
        parseUsd,
      ));
    const premiumBudgetUsd =
      options.premiumBudget ??
      (await ask(
        `USD per ${options.budgetWindow ?? DEFAULTS.budgetWindow} for the premium rung (0 disables it)`,
        String(DEFAULTS.premiumBudgetUsd),
        parseUsd,
      ));
    const apiKeyEnv =
      options.apiKeyEnv ??
      (await ask(
        "environment variable of a client key (none = loopback only)",
        "none",
        (answer) => {
          if (answer === "none") return "";
          assertEnvName(answer);
          return answer;
        },
      ));
    return { ...flags, connections, port, cheapBudgetUsd, premiumBudgetUsd, apiKeyEnv };
  } finally {
    readline.close();
  }
}
