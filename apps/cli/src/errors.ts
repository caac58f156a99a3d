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

const MARKER = Symbol.for("planfirst.error.CliError");

/** What a {@link CliError} is built from: its code, message, cause and fields. */
export interface CliErrorInit {
  code: CliErrorCode;
  /** Printed to stderr as is: never a secret. */
  message: string;
  /** The underlying error, when one exists. */
  cause?: unknown;
  /** What the process exits with; defaults by code (`usage` 2, `gateway_unreachable` 3, else 1). */
  exitCode?: ExitCode;
  /** Extra lines printed after the message (one problem per line). */
  details?: readonly string[];
}

/**
 * The one error class of the `planfirst` command. `exitCode` is what the process exits with;
 * `message` is printed to stderr as is, so it never carries a secret. Recognise it with
 * {@link CliError.isInstance}, which also works across two loaded copies (ESM and CJS).
 */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly code: CliErrorCode;
  readonly exitCode: ExitCode;
  /** Extra lines printed after the message (one problem per line). */
  readonly details: readonly string[];

  constructor({ code, message, cause, exitCode, details }: CliErrorInit) {
    super(message, cause === undefined ? undefined : { cause });
    Object.defineProperty(this, MARKER, { value: true });
    this.code = code;
    this.exitCode = exitCode ?? defaultExitCode(code);
    this.details = details ?? [];
  }

  /** True for a `CliError` from any loaded copy of this package. */
  static isInstance(error: unknown): error is CliError {
    return typeof error === "object" && error !== null && MARKER in error;
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
