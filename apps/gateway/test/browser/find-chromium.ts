import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Program names looked up on `PATH`, in this order. */
export const CHROMIUM_NAMES = [
  "chromium",
  "chromium-browser",
  "google-chrome",
  "google-chrome-stable",
] as const;

/** Where the macOS apps keep their executables; tried after `PATH`. */
export const MAC_APP_EXECUTABLES = [
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
] as const;

/** The outcome of a search: the browser found, and every path looked at, in order. */
export interface ChromiumSearch {
  /** Absolute path of an executable Chromium or Chrome; null when none was found. */
  readonly executablePath: string | null;
  /** Every path checked, in order, ending with the one found (if any). */
  readonly tried: readonly string[];
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds a Chromium or Chrome for the browser tests, without downloading one. `CHROMIUM_PATH`,
 * when set, is the only candidate: an explicit choice is used or reported, never replaced by
 * another browser. Otherwise each of {@link CHROMIUM_NAMES} is looked up on `PATH` (every
 * directory, in order, for each name), then {@link MAC_APP_EXECUTABLES}. Never throws.
 *
 * @param env where `CHROMIUM_PATH` and `PATH` are read (default `process.env`)
 * @param macApps the app executables tried last (default {@link MAC_APP_EXECUTABLES})
 */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  macApps: readonly string[] = MAC_APP_EXECUTABLES,
): ChromiumSearch {
  const tried: string[] = [];
  const check = (path: string) => {
    tried.push(path);
    return isExecutableFile(path);
  };
  const explicit = env.CHROMIUM_PATH;
  if (explicit) return { executablePath: check(explicit) ? explicit : null, tried };
  const directories = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const name of CHROMIUM_NAMES) {
    for (const dir of directories) {
      const path = join(dir, name);
      if (check(path)) return { executablePath: path, tried };
    }
  }
  for (const path of macApps) {
    if (check(path)) return { executablePath: path, tried };
  }
  return { executablePath: null, tried };
}

/** True when `CI` is set to anything but an empty string, `0` or `false`. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/**
 * The browser a browser test file runs on, or null when its tests are to be skipped. Outside
 * CI, a machine without a browser skips them, and `warn` gets one line saying how to run them
 * (a fresh clone's `pnpm test` passes without Chromium). In CI (see {@link isCi}) the browser is
 * required: a missing one throws, naming every path tried, so the file fails.
 *
 * @param file the test file, named in the skip line
 * @param warn receives the skip line; by default it is written to stderr as is, one line without
 *   the header vitest puts above console output
 */
export function chromiumForTests(
  file: string,
  search: ChromiumSearch = findChromium(),
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): string | null {
  if (search.executablePath) return search.executablePath;
  if (isCi(env)) {
    throw new Error(
      `CI requires a Chromium or Chrome for ${file} and none was found; tried:\n  ${search.tried.join("\n  ")}`,
    );
  }
  warn(
    `${file}: skipped, no Chromium or Chrome found; install chromium or set CHROMIUM_PATH to run it`,
  );
  return null;
}
