import pc from "picocolors";

/** picocolors formatters (no-ops when colour is off). */
export type Colors = ReturnType<typeof pc.createColors>;

/** A writable text stream; `isTTY` decides colour and interactive questions. */
export interface CliOutput {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** Everything the commands touch outside the process's own code, injectable for tests. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Environment read for `env:` secrets, `NO_COLOR`, `PLANFIRST_URL`, `PLANFIRST_API_KEY`. */
  env: NodeJS.ProcessEnv;
  /** Directory relative paths are resolved against. */
  cwd: string;
  /** Clock, epoch milliseconds. */
  now: () => number;
}

/** What every command receives: the I/O, colours, and the exit code it sets. */
export interface CliContext {
  io: CliIo;
  /** picocolors formatters, no-ops when colour is off. */
  color: Colors;
  /** Whether colour is on (stdout is a TTY and `NO_COLOR` is unset or empty). */
  colorEnabled: boolean;
  /** Exit code the command chose; 0 unless a command sets it. */
  exitCode: number;
}

/** The real process I/O. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    now: Date.now,
  };
}

/**
 * Colour is on only when stdout is a terminal and `NO_COLOR` is unset or empty
 * (https://no-color.org).
 */
export function shouldUseColor(io: Pick<CliIo, "stdout" | "env">): boolean {
  const noColor = io.env.NO_COLOR;
  return Boolean(io.stdout.isTTY) && (noColor === undefined || noColor === "");
}

/** Builds a context over `io` (default: the real process). */
export function createCliContext(io: Partial<CliIo> = {}): CliContext {
  const full: CliIo = { ...processIo(), ...io };
  const colorEnabled = shouldUseColor(full);
  return { io: full, color: pc.createColors(colorEnabled), colorEnabled, exitCode: 0 };
}
