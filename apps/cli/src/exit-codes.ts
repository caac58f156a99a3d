/**
 * Exit codes of the `planfirst` command. Scripts may rely on them; they only ever grow.
 *
 * - `ok` (0): done; warnings may have been printed.
 * - `problems` (1): problems found (config errors, an invalid catalog file, an unknown model
 *   id, a refused reload), or the command failed at run time.
 * - `usage` (2): the command line was wrong (unknown option, missing argument, bad value).
 * - `unreachable` (3): the gateway at `--url` did not answer.
 */
export const EXIT_CODES = {
  ok: 0,
  problems: 1,
  usage: 2,
  unreachable: 3,
} as const;

/** One of the values of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
