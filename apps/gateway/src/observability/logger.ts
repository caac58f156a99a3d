import pino, { type Logger } from "pino";

/**
 * Paths pino removes from every log line, so a credential can never be written: client keys
 * (`authorization`, `x-api-key` in any headers object), upstream credentials and cookies.
 */
export const REDACTED_LOG_PATHS: readonly string[] = [
  "authorization",
  "credential",
  "apiKey",
  "key",
  "*.authorization",
  "*.credential",
  "*.apiKey",
  "*.key",
  '*["x-api-key"]',
  "*.cookie",
  "*.headers.authorization",
  '*.headers["x-api-key"]',
  "*.headers.cookie",
  "*.*.authorization",
  '*.*["x-api-key"]',
];

/** Creates the gateway's pino logger (JSON lines on stdout unless `destination` is given). */
export function createLogger(
  options: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  const base = {
    level: options.level ?? "info",
    base: { service: "planfirst-gateway" },
    redact: { paths: [...REDACTED_LOG_PATHS], censor: "[redacted]" },
  };
  return options.destination ? pino(base, options.destination) : pino(base);
}
