import type { Command } from "commander";
import { loadConfigOrThrow, locateConfig } from "../config-file";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import { loadGateway } from "../gateway-module";
import { writeErr, writeOut } from "../output";
import { parsePort } from "../parse-option";
import { reloadLines } from "./reload";

/** Options of `planfirst serve`. */
interface ServeOptions {
  config?: string;
  port?: number;
  host?: string;
}

/** Registers `planfirst serve [--config FILE] [--port N] [--host H]`. */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command("serve")
    .description(
      "run the gateway until Ctrl-C or SIGTERM (SIGHUP re-reads the config file); prints its address, the catalog data date and one line per connection",
    )
    .option(
      "-c, --config <file>",
      "config file (default ./planfirst.yaml, else ./planfirst.example.yaml)",
    )
    .option(
      "-p, --port <n>",
      "port to listen on (overrides server.port; 0 = any free port)",
      parsePort,
    )
    .option("-H, --host <host>", "address to listen on (overrides server.host)")
    .action(async (options: ServeOptions) => {
      await runServe(context, options);
    });
}

async function runServe(context: CliContext, options: ServeOptions): Promise<void> {
  const location = locateConfig(options.config, context.io.cwd);
  if (location.source === "example") {
    writeOut(
      context,
      `no --config and no ./planfirst.yaml: using ${location.shown} (copy it to planfirst.yaml to make it yours)`,
    );
  }
  const config = await loadConfigOrThrow(location);
  const { createLogger, startServer } = await loadGateway();
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      config,
      configPath: location.path,
      port: options.port,
      host: options.host,
      env: context.io.env,
      now: context.io.now,
      // Request and warning logs (pino JSON lines) go to stderr; stdout keeps the summary.
      logger: createLogger({
        level: config.server.logLevel,
        destination: {
          write: (line: string) => {
            context.io.stderr.write(line);
          },
        },
      }),
      print: (line) => writeOut(context, line),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") {
      throw new CliError({
        code: "gateway_error",
        message: `cannot listen: ${(error as Error).message}`,
        cause: error,
      });
    }
    throw error;
  }
  const running = server;
  const reload = () => {
    void running.reload().then((outcome) => {
      if (outcome.reloaded) {
        writeOut(context, `SIGHUP: ${reloadLines(outcome, context).join("\n")}`);
        return;
      }
      writeErr(context, `SIGHUP: configuration not reloaded: ${outcome.message}`);
      for (const problem of outcome.problems) {
        writeErr(context, `  ${problem.path || "(root)"}: ${problem.message}`);
      }
    });
  };
  process.on("SIGHUP", reload);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  process.off("SIGHUP", reload);
  writeOut(context, `${signal}: stopping`);
  await server.close();
  writeOut(context, "stopped");
}
