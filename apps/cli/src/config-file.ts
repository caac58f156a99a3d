import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { GatewayConfig } from "@planfirst/gateway";
import { CliError } from "./errors";
import { loadGateway } from "./gateway-module";

/** The config file looked for in the working directory when `--config` is not given. */
const DEFAULT_CONFIG_FILE = "planfirst.yaml";
/** The committed example config, used when there is neither `--config` nor `planfirst.yaml`. */
const EXAMPLE_CONFIG_FILE = "planfirst.example.yaml";

/** Which config file a command reads and why. */
interface ConfigLocation {
  /** Absolute path. */
  path: string;
  /** As the operator would write it (the `--config` value, or the default file name). */
  shown: string;
  /** `option`: `--config`; `default`: ./planfirst.yaml; `example`: ./planfirst.example.yaml. */
  source: "option" | "default" | "example";
}

/**
 * Finds the config file: `--config FILE` if given (it must exist: else exit 2), else
 * `planfirst.yaml` in `cwd`, else the committed `planfirst.example.yaml` in `cwd`. Neither → a
 * `CliError` telling the operator to pass `--config` or run `planfirst init`.
 */
export function locateConfig(option: string | undefined, cwd: string): ConfigLocation {
  if (option !== undefined) {
    const path = resolve(cwd, option);
    if (!existsSync(path))
      throw new CliError({ code: "file_unreadable", message: `${option}: no such file` });
    return { path, shown: option, source: "option" };
  }
  for (const [file, source] of [
    [DEFAULT_CONFIG_FILE, "default"],
    [EXAMPLE_CONFIG_FILE, "example"],
  ] as const) {
    const path = resolve(cwd, file);
    if (existsSync(path)) return { path, shown: file, source };
  }
  throw new CliError({
    code: "file_unreadable",
    message: `no config file: pass --config FILE, or run "planfirst init" to write ${DEFAULT_CONFIG_FILE}`,
  });
}

/** One problem of a config file: its path in the document and what is wrong. */
interface ConfigProblem {
  path: string;
  message: string;
}

/**
 * Loads and validates the config at `location` with the gateway's own loader. An invalid file
 * is returned as its problems (never thrown), so `check` can list them and `--json` can carry
 * them; the messages name `env:` variables, never values.
 */
export async function readConfig(
  location: ConfigLocation,
): Promise<{ ok: true; config: GatewayConfig } | { ok: false; problems: ConfigProblem[] }> {
  const { ConfigError, loadConfigFile } = await loadGateway();
  try {
    return { ok: true, config: loadConfigFile(location.path) };
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      const problems =
        error.problems.length > 0
          ? error.problems.map((problem) => ({
              path: problem.path || "(root)",
              message: problem.message,
            }))
          : [{ path: "(file)", message: error.message }];
      return { ok: false, problems };
    }
    throw error;
  }
}

/** Like {@link readConfig}, but an invalid config is a `CliError` (exit 1) listing every problem. */
export async function loadConfigOrThrow(location: ConfigLocation): Promise<GatewayConfig> {
  const result = await readConfig(location);
  if (result.ok) return result.config;
  throw new CliError({
    code: "config_invalid",
    message: `invalid configuration in ${location.shown}`,
    details: result.problems.map((problem) => `${problem.path}: ${problem.message}`),
  });
}
