import { EXIT_CODES, type ExitCode } from "./exit-codes";

/** Stable codes of {@link CliError}. */
export type CliErrorCode =
  | "usage"
  | "file_unreadable"
  | "file_exists"
  | "config_invalid"
  | "gateway_unreachable"
  | "gateway_error"
  | "model_unknown"
  | "provider_unknown";

/**
 * The one error class of the `planfirst` command. `exitCode` is what the process exits with;
 * `message` is printed to stderr as is, so it never carries a secret.
 */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly code: CliErrorCode;
  readonly exitCode: ExitCode;
  /** Extra lines printed after the message (one problem per line). */
  readonly details: readonly string[];

  constructor(
    code: CliErrorCode,
    message: string,
    options: { exitCode?: ExitCode; details?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? defaultExitCode(code);
    this.details = options.details ?? [];
  }
}

function defaultExitCode(code: CliErrorCode): ExitCode {
  switch (code) {
    case "usage":
    case "file_unreadable":
      return EXIT_CODES.usage;
    case "gateway_unreachable":
      return EXIT_CODES.unreachable;
    default:
      return EXIT_CODES.problems;
  }
}
