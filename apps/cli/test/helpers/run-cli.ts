import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The apps/cli folder: subprocesses run from here so `src/bin.ts` resolves. */
export const CLI_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** What a finished `planfirst` process left behind. */
export interface CliRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli} and {@link startCli}. */
export interface RunOptions {
  /** Extra environment, over `NO_COLOR=1` (set so output is plain; `undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** Working directory of the process (default apps/cli). */
  cwd?: string;
}

// tsx as a file URL, so the process may run from any working directory (`--import tsx` is
// resolved from the working directory).
const TSX_LOADER = pathToFileURL(createRequire(join(CLI_ROOT, "package.json")).resolve("tsx")).href;

function cliArgs(args: readonly string[]): string[] {
  return [
    "--conditions=@planfirst/source",
    "--import",
    TSX_LOADER,
    join(CLI_ROOT, "src/bin.ts"),
    ...args,
  ];
}

function cliEnv(extra: RunOptions["env"]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...extra };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return env;
}

/** Starts `planfirst ARGS…` as a real process (node + tsx over src/bin.ts). */
export function startCli(args: readonly string[], options: RunOptions = {}): ChildProcess {
  return spawn(process.execPath, cliArgs(args), {
    cwd: options.cwd ?? CLI_ROOT,
    env: cliEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Waits for `child` to exit and returns its exit code and output. */
export function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
  });
}

/** Runs `planfirst ARGS…` to completion. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  return finished(startCli(args, options));
}

/**
 * Resolves with the text seen so far on `stream` (default stdout) once `pattern` matches it
 * (rejects on exit first).
 */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 15_000,
  stream: "stdout" | "stderr" = "stdout",
): Promise<string> {
  return new Promise((resolve, reject) => {
    const watched = stream === "stdout" ? child.stdout : child.stderr;
    const other = stream === "stdout" ? child.stderr : child.stdout;
    let seen = "";
    let errors = "";
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out waiting for ${pattern}; ${stream}: ${seen}; other: ${errors}`));
    }, timeoutMs);
    const onData = (chunk: Buffer | string) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        cleanup();
        resolve(seen);
      }
    };
    const onErr = (chunk: Buffer | string) => {
      errors += chunk.toString();
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`exited (${code}) before ${pattern}; ${stream}: ${seen}; other: ${errors}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      watched?.off("data", onData);
      other?.off("data", onErr);
      child.off("exit", onExit);
    };
    watched?.on("data", onData);
    other?.on("data", onErr);
    child.on("exit", onExit);
  });
}
