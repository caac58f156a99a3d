import { readFileSync } from "node:fs";
import { validateRungBudgets } from "@planfirst/subscription-ladder";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { ConfigError, type GatewayProblem } from "../errors";
import { type GatewayConfig, gatewayConfigSchema } from "./schema";

/**
 * Validates a parsed configuration document (from YAML or JSON) and fills in the defaults.
 * Throws a `ConfigError` listing every problem: its path (`connections[1].protocol`) and what is
 * allowed there. Budgets on quota rungs are refused (rule B5). Reads no environment variable.
 */
export function parseConfig(document: unknown): GatewayConfig {
  const result = gatewayConfigSchema.safeParse(document ?? {});
  if (!result.success) {
    throw new ConfigError({
      code: "invalid_config",
      message: "invalid configuration",
      problems: result.error.issues.flatMap((issue) => problemsOf(issue, [])),
    });
  }
  const budgetProblems = validateRungBudgets(result.data.subscriptionLadder.rungBudgetUsd);
  if (budgetProblems.length > 0) {
    throw new ConfigError({
      code: "invalid_config",
      message: "invalid configuration",
      problems: budgetProblems.map((problem) => ({
        path: `subscriptionLadder.${problem.path}`,
        message: `${problem.message} (allowed: ${problem.allowed})`,
      })),
    });
  }
  return result.data;
}

/**
 * Reads a YAML or JSON configuration file (JSON is valid YAML) and validates it with
 * `parseConfig`. Throws a `ConfigError` when the file cannot be read or parsed.
 */
export function loadConfigFile(path: string): GatewayConfig {
  return parseConfigText(readConfigText(path), path);
}

/** The text of a configuration file; a `ConfigError` naming the file when it cannot be read. */
export function readConfigText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError({
      code: "invalid_config",
      message: `cannot read configuration file ${path}`,
      problems: [{ path: "", message: error instanceof Error ? error.message : String(error) }],
      cause: error,
    });
  }
}

/**
 * Parses the YAML or JSON `text` of the configuration file `path` (named in errors) and
 * validates it with `parseConfig`.
 */
export function parseConfigText(text: string, path: string): GatewayConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError({
      code: "invalid_config",
      message: `configuration file ${path} is not valid YAML or JSON`,
      problems: [{ path: "", message }],
    });
  }
  try {
    return parseConfig(document);
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      throw new ConfigError({
        code: "invalid_config",
        message: `invalid configuration in ${path}`,
        problems: error.problems,
      });
    }
    throw error;
  }
}

/** Renders a zod path as `a.b[2].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/**
 * The problems of one issue. A value that fits no branch of a union (a client key entry, a
 * credential) is reported by the branch whose type it has (an object, not the `env:NAME`
 * string): each of that branch's own problems, named at its full path.
 */
function problemsOf(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): GatewayProblem[] {
  const fullPath = [...prefix, ...issue.path];
  if (issue.code === "invalid_union") {
    const typed = issue.errors.filter(
      (branch) => !branch.some((inner) => inner.code === "invalid_type" && inner.path.length === 0),
    );
    if (typed.length === 1) return typed[0]!.flatMap((inner) => problemsOf(inner, fullPath));
  }
  return [problemOf(issue, fullPath)];
}

function problemOf(issue: z.core.$ZodIssue, fullPath: readonly PropertyKey[]): GatewayProblem {
  const path = formatPath(fullPath);
  if (issue.code === "unrecognized_keys") {
    const allowed = allowedKeysAt(fullPath);
    return {
      path,
      message: `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}${allowed ? `; allowed: ${allowed.join(", ")}` : ""}`,
    };
  }
  if (issue.code === "invalid_value" && issue.values.length > 0) {
    return {
      path,
      message: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`,
    };
  }
  return { path, message: issue.message };
}

type AnySchema = z.core.$ZodType;

// Walks the schema along an issue path to name the keys an object accepts there.
function allowedKeysAt(path: readonly PropertyKey[]): string[] | undefined {
  let schema: AnySchema | undefined = gatewayConfigSchema;
  for (const segment of path) {
    schema = unwrap(schema);
    if (!schema) return undefined;
    const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
    if (def.type === "object") {
      schema = (def.shape as Record<string, AnySchema>)[String(segment)];
    } else if (def.type === "array") {
      schema = def.element as AnySchema;
    } else if (def.type === "record") {
      schema = def.valueType as AnySchema;
    } else if (def.type === "union") {
      schema = (def.options as AnySchema[]).find(
        (option) => unwrap(option)?._zod.def.type === "object",
      );
    } else {
      return undefined;
    }
  }
  schema = unwrap(schema);
  if (!schema) return undefined;
  let def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type === "union") {
    // An entry that is an object where a union also takes a string (a client key entry).
    const object = (def.options as AnySchema[]).find(
      (option) => unwrap(option)?._zod.def.type === "object",
    );
    const inner = unwrap(object);
    if (!inner) return undefined;
    def = inner._zod.def as unknown as Record<string, unknown> & { type: string };
  }
  if (def.type === "object") return Object.keys(def.shape as object);
  if (def.type === "record") {
    const keyType = unwrap(def.keyType as AnySchema);
    const keyDef = keyType?._zod.def as unknown as { type: string; entries?: object };
    if (keyDef?.type === "enum" && keyDef.entries) return Object.keys(keyDef.entries);
  }
  return undefined;
}

function unwrap(schema: AnySchema | undefined): AnySchema | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current; i++) {
    const def = current._zod.def as unknown as Record<string, unknown> & { type: string };
    if (
      def.type === "default" ||
      def.type === "prefault" ||
      def.type === "optional" ||
      def.type === "nullable"
    ) {
      current = def.innerType as AnySchema;
    } else if (def.type === "pipe") {
      current = def.in as AnySchema;
    } else {
      return current;
    }
  }
  return current;
}
