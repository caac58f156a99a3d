import { TemplateError } from "./template-error";

/**
 * Names a quota window by its length, the way the status page and the CLI print it:
 * `18000` → `"5h"`, `604800` → `"7d"`, `90` → `"90s"`. Throws `TemplateError`
 * (`invalid_argument`) for anything but a positive whole number of seconds.
 */
export function windowLabel(windowSeconds: number): string {
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds <= 0) {
    throw new TemplateError({
      code: "invalid_argument",
      message: `windowSeconds must be a positive whole number of seconds; received ${String(windowSeconds)}`,
      path: "windowSeconds",
      allowed: "a positive safe integer",
    });
  }
  if (windowSeconds % 86_400 === 0) return `${windowSeconds / 86_400}d`;
  if (windowSeconds % 3_600 === 0) return `${windowSeconds / 3_600}h`;
  if (windowSeconds % 60 === 0) return `${windowSeconds / 60}m`;
  return `${windowSeconds}s`;
}
