import type { CliContext } from "./context";

/** Writes one JSON document (two-space indented) and a newline to stdout. */
export function writeJson(context: CliContext, value: unknown): void {
  context.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Writes `text` to stdout, adding a final newline when it has none. */
export function writeOut(context: CliContext, text: string): void {
  context.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Writes `text` to stderr, adding a final newline when it has none. */
export function writeErr(context: CliContext, text: string): void {
  context.io.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}
